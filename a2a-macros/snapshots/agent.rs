/// Converts money between currencies.
pub struct Currency {
    rates: Vec<f64>,
}
const _: () = {
    static __A2A_AGENT: ::a2a_runtime::__private::AgentDescriptor = ::a2a_runtime::__private::AgentDescriptor::__new(::a2a_runtime::__private::AgentParts {
        type_name: "Currency",
        name: "Currency Agent",
        description: "Converts money between currencies.",
        version: "1.2.0",
        provider: ::core::option::Option::Some(("Acme", "https://acme.example")),
        documentation_url: ::core::option::Option::None,
        icon_url: ::core::option::Option::None,
        default_input_modes: ::core::option::Option::None,
        default_output_modes: ::core::option::Option::None,
        skills: &[],
        resources: &[],
        prompts: &[],
        security: || {
            ::std::vec![
                ::a2a_runtime::__private::declared_scheme("bearer",
                ::core::option::Option::None,
                ::a2a_runtime::__private::SecurityScheme::Bearer)
            ]
        },
        extensions: &[
            ::a2a_runtime::__private::ExtensionDescriptor {
                uri: "urn:acme:signed:v1",
                description: "Signed quotes.",
                required: true,
                params: ::core::option::Option::Some("{\"alg\": \"ed25519\"}"),
            },
        ],
    });
    #[automatically_derived]
    impl ::a2a_runtime::__private::Agent for Currency {
        fn __descriptor() -> &'static ::a2a_runtime::__private::AgentDescriptor {
            &__A2A_AGENT
        }
    }
    #[automatically_derived]
    impl ::a2a_runtime::__private::ScopedSecurity for Currency {}
};
