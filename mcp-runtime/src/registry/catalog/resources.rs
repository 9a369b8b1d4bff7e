//! The catalog's resources: static ones (one URI) and templates (a family of URIs), from
//! `#[resource]` (and `#[view]`) functions and from resources added at run time, each URI
//! served once and no two templates matching the same URI.

use serde_json::Value;

use super::checks::{check_states, one_per_key, prepare_each};
use super::{BuildError, Defs};
use crate::protocol::{Annotations, Resource, ResourceTemplate};
use crate::registry::dynamic::{DynamicRead, DynamicResource};
use crate::registry::spec::ARTIFACT_SCHEME;
use crate::registry::{uri, Defined, ParamSpec, ResourceDef};

/// One resource (static or template) as served.
pub struct CatalogResource {
    /// What the macro emitted.
    pub def: &'static ResourceDef,
    /// The URI (static) or the RFC 6570 template, as published.
    pub published: String,
    /// The list entry (`Resource` or `ResourceTemplate`).
    pub entry: Value,
    /// What it reads depends on who asks (it declares scopes or takes the principal), so
    /// its reads are `cacheScope: private` unless it says `cache = public`.
    pub private: bool,
    /// The handler of a resource added at run time (`def.read` for a `#[resource]`).
    pub(crate) dynamic: Option<DynamicRead>,
}

impl CatalogResource {
    /// The resource as a visibility rule sees it: a static resource or a template.
    pub(crate) fn listed(&self) -> crate::registry::Listed<'static> {
        if self.def.is_static() {
            crate::registry::Listed::Resource(self.def)
        } else {
            crate::registry::Listed::Template(self.def)
        }
    }

    /// Start the handler on this read.
    pub(crate) fn read(
        &self,
        ctx: crate::core::RequestContext,
        request: crate::registry::ReadRequest,
    ) -> crate::registry::ReadFuture {
        match &self.dynamic {
            Some(read) => read(ctx, request.uri),
            None => (self.def.read)(ctx, request),
        }
    }
}

/// The static resources and the templates of `defs`, each sorted by what it publishes;
/// what is wrong with the others goes to `errors`.
pub(super) fn resources(
    defs: &Defs,
    has_state: &dyn Fn(std::any::TypeId) -> bool,
    errors: &mut Vec<BuildError>,
) -> (Vec<CatalogResource>, Vec<CatalogResource>) {
    let emitted = defs.resources.iter().map(|def| (*def, None));
    let added = defs.dynamic_resources.iter().map(|r| (r.def, Some(&**r)));
    let (static_defs, template_defs): (Vec<_>, Vec<_>) =
        emitted.chain(added).partition(|(def, _)| def.is_static());
    let static_defs = one_per_key(
        static_defs,
        |(def, _)| def.uri.to_owned(),
        |(def, _)| def.place(),
        |uri, places| BuildError::DuplicateResource { uri, places },
        errors,
    );
    for (i, (a, _)) in template_defs.iter().enumerate() {
        for (b, _) in template_defs.iter().skip(i + 1) {
            if uri::overlaps(a.template, b.template) {
                errors.push(BuildError::OverlappingTemplates {
                    templates: [a.uri.to_owned(), b.uri.to_owned()],
                    places: [a.place(), b.place()],
                });
            }
        }
    }
    let all = static_defs.into_iter().chain(template_defs);
    let served = prepare_each(all, |(def, added)| prepare(def, added, has_state), errors);
    let (mut resources, mut templates): (Vec<_>, Vec<_>) =
        served.into_iter().partition(|r| r.def.is_static());
    resources.sort_by(|a, b| a.published.cmp(&b.published));
    templates.sort_by(|a, b| a.published.cmp(&b.published));
    (resources, templates)
}

/// One resource or template: its list entry as given (added at run time) or made from its
/// definition, once its scheme and the states it needs are checked.
fn prepare(
    def: &'static ResourceDef,
    added: Option<&DynamicResource>,
    has_state: &dyn Fn(std::any::TypeId) -> bool,
) -> Result<CatalogResource, Vec<BuildError>> {
    let item = format!("resource `{}`", def.uri);
    if def.uri.starts_with(ARTIFACT_SCHEME) {
        return Err(vec![BuildError::InvalidItem {
            item,
            problems: vec![format!(
                "the `{ARTIFACT_SCHEME}` scheme is the server's own, for artifacts (large tool results); use another scheme"
            )],
        }]);
    }
    if let Some(added) = added {
        let published = if def.is_static() {
            def.uri.to_owned()
        } else {
            uri::rfc6570(def.template)
        };
        return Ok(CatalogResource {
            def,
            published,
            entry: added.entry.clone(),
            private: true,
            dynamic: Some(added.handler.clone()),
        });
    }
    check_states(&ParamSpec::of(def.params), &item, has_state)?;
    Ok(if def.is_static() {
        static_entry(def)
    } else {
        template_entry(def)
    })
}

/// Whether a resource's reads vary by caller.
fn reads_vary_by_caller(def: &ResourceDef) -> bool {
    !def.scopes.is_empty() || ParamSpec::of(def.params).principal()
}

fn annotations(def: &ResourceDef) -> Option<Annotations> {
    if def.audience.is_none() && def.priority.is_none() {
        return None;
    }
    Some(Annotations {
        audience: def.audience.map(<[_]>::to_vec),
        priority: def.priority,
        last_modified: None,
    })
}

fn static_entry(def: &'static ResourceDef) -> CatalogResource {
    let resource = Resource {
        uri: def.uri.to_owned(),
        name: def.name.to_owned(),
        title: def.title.map(str::to_owned),
        description: def.description.map(str::to_owned),
        // A view is HTML for the MCP Apps host, whatever the function returns.
        mime_type: def
            .view
            .map(|_| crate::protocol::extensions::UI_MIME)
            .or(def.mime)
            .map(str::to_owned),
        size: def.size,
        annotations: annotations(def),
        meta: def.view.map(|view| view.meta()),
    };
    CatalogResource {
        def,
        published: def.uri.to_owned(),
        entry: serde_json::to_value(resource).unwrap_or(Value::Null),
        private: reads_vary_by_caller(def),
        dynamic: None,
    }
}

fn template_entry(def: &'static ResourceDef) -> CatalogResource {
    let published = uri::rfc6570(def.template);
    let template = ResourceTemplate {
        uri_template: published.clone(),
        name: def.name.to_owned(),
        title: def.title.map(str::to_owned),
        description: def.description.map(str::to_owned),
        mime_type: def.mime.map(str::to_owned),
        annotations: annotations(def),
    };
    CatalogResource {
        def,
        published,
        entry: serde_json::to_value(template).unwrap_or(Value::Null),
        private: reads_vary_by_caller(def),
        dynamic: None,
    }
}
