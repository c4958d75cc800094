"""What the release imports for `module: acme_echo` (<module>.provider.get_provider_spec)."""

try:  # OGX (0.8 on)
    from ogx_api import Api, RemoteProviderSpec
except ImportError:  # llama-stack (0.7 and before)
    from llama_stack_api import Api, RemoteProviderSpec


def get_provider_spec() -> RemoteProviderSpec:
    return RemoteProviderSpec(
        api=Api.inference,
        adapter_type="acme-echo",
        provider_type="remote::acme-echo",
        # The module whose get_adapter_impl the release calls at startup.
        module="acme_echo",
        config_class="acme_echo.config.AcmeEchoConfig",
        pip_packages=[],
        description="Forwards chat completions to its echo service and puts its prefix before the answer (llsd-hook tests).",
    )
