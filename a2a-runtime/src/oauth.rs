#![doc = include_str!("../docs/oauth-server.md")]

pub use a2a_runtime_oauth::{
    AccessPolicy, Client, DevSignIn, GrantStore, GrantStoreError, MAX_CODE_TTL, MemoryGrants,
    OAuthError, OAuthServer, ProxySignIn, RedirectPolicy, SignIn, SignInContext, User,
    is_local_path, preset_names,
};
/// The boxed future a [`SignIn`] answers with.
pub use a2a_runtime_types::util::BoxFuture;
