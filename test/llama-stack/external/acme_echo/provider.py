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
        module="acme_echo",
        config_class="acme_echo.config.AcmeEchoConfig",
        pip_packages=[],
        description="Echoes the prompt (llsd-hook tests).",
    )


async def get_adapter_impl(config, _deps):  # noqa: ANN001 - the release's signature
    raise NotImplementedError("acme-echo is validated, never served, in llsd-hook's tests")
