::core::compile_error! {
    "`documentation_url` must be an absolute http(s) URL, got \"docs.example.com\""
}
/// An agent.
struct Demo;
const _: () = {
    #[automatically_derived]
    impl ::a2a_runtime::__private::Agent for Demo {
        fn __descriptor() -> &'static ::a2a_runtime::__private::AgentDescriptor {
            &::a2a_runtime::__private::AgentDescriptor::INVALID
        }
    }
    #[automatically_derived]
    impl ::a2a_runtime::__private::ScopedSecurity for Demo {}
};
