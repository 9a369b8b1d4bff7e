//! A server secured with OAuth for tests, on a loopback port: a test issuer signs its
//! tokens.

use std::net::SocketAddr;

use mcp_runtime::policy::oauth::ProtectedResource;
use mcp_runtime::testing::TestIssuer;
use mcp_runtime::Server;

use crate::common::serve_on;

/// The issuer the test tokens name.
pub const ISSUER: &str = "https://issuer.test";

/// A secured server on a loopback port, its issuer and resource URI.
pub struct Secured {
    pub addr: SocketAddr,
    pub issuer: TestIssuer,
    pub resource: String,
}

impl Secured {
    /// Serves the `secured` fixtures, configured by `configure`, with tokens of a fresh
    /// test issuer.
    pub async fn start(configure: impl FnOnce(Server) -> Server) -> Secured {
        let issuer = TestIssuer::new(ISSUER).unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let resource = format!(
            "http://127.0.0.1:{}/mcp",
            listener.local_addr().unwrap().port()
        );
        let server = mcp_workspace_tests::secured::server().oauth(
            ProtectedResource::new(&resource)
                .authorization_server(ISSUER)
                .scopes_supported(["orders:read", "orders:write"]),
            issuer.verifier(&resource).unwrap(),
        );
        let app = configure(server).build().unwrap();
        let addr = serve_on(listener, app).await;
        Secured {
            addr,
            issuer,
            resource,
        }
    }

    /// A valid token of `subject` in `tenant` with `scopes`.
    pub fn token(&self, subject: &str, tenant: &str, scopes: &[&str]) -> String {
        self.issuer
            .token(&self.resource)
            .subject(subject)
            .tenant(tenant)
            .scopes(scopes.iter().copied())
            .mint()
    }
}
