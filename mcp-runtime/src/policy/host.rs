//! Host names as this server compares them: the DNS-rebinding allowlist of the HTTP
//! transport and the OAuth checks (the resource's host, loopback issuers) read an
//! authority the same way, so the rule lives here, below both.

/// The host part of `Host` or of an `Origin` URL, lower-cased and without port.
pub(crate) fn host_of(authority: &str) -> String {
    host_name(authority).to_ascii_lowercase()
}

/// The host part of `Host` or of an `Origin` URL, without port, as written.
pub(crate) fn host_name(authority: &str) -> &str {
    let authority = authority.trim();
    if authority.starts_with('[') {
        // IPv6 literal: keep the brackets, drop the port.
        return match authority.find(']') {
            Some(end) => authority.get(..=end).unwrap_or_default(),
            None => authority,
        };
    }
    match authority.rsplit_once(':') {
        Some((host, port)) if port.bytes().all(|b| b.is_ascii_digit()) => host,
        _ => authority,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_are_compared_without_port_and_case() {
        assert_eq!(host_of("LocalHost:8080"), "localhost");
        assert_eq!(host_of("[::1]:3000"), "[::1]");
        assert_eq!(host_of("127.0.0.1"), "127.0.0.1");
        assert_eq!(host_name("LocalHost:8080"), "LocalHost");
    }
}
