//! Reading user types by their spelling, where the macros must decide before type checking
//! (is a parameter injected, is it an `Option`).

use syn::Type;

/// The last path segment of a type (`State` of `a2a_runtime::State<A>`), through groups and
/// parentheses.
pub(crate) fn last_segment(ty: &Type) -> Option<&syn::PathSegment> {
    match ty {
        Type::Path(path) if path.qself.is_none() => path.path.segments.last(),
        Type::Group(group) => last_segment(&group.elem),
        Type::Paren(paren) => last_segment(&paren.elem),
        _ => None,
    }
}
