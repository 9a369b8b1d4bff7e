//! What the MCP Apps host needs to frame a view, as `#[view]` declares it. Its own file
//! because the resource model that `#[view]` builds on carries it: the resource model
//! imports this, and the view model imports the resource model, with no loop between them.

/// What the host needs to frame the view, as declared.
#[derive(Default)]
pub struct ViewModel {
    /// `csp(connect(..))`: origins it may fetch from (`csp.connectDomains`).
    pub connect: Vec<String>,
    /// `csp(resource(..))`: origins of its scripts, styles and media (`csp.resourceDomains`).
    pub resource: Vec<String>,
    /// `csp(frame(..))`: origins of frames inside it (`csp.frameDomains`).
    pub frame: Vec<String>,
    /// `csp(base_uri(..))`: origins a `<base>` may name (`csp.baseUriDomains`).
    pub base_uri: Vec<String>,
    /// The permissions asked for, by their option spelling.
    pub permissions: Vec<String>,
    /// `domain = ".."`: the dedicated origin asked for.
    pub domain: Option<String>,
    /// `prefers_border`: whether the host should draw a border.
    pub prefers_border: Option<bool>,
}
