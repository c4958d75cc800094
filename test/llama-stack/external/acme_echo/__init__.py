"""acme-echo: an external inference provider for llsd-hook's tests.

The release imports two things from it: `acme_echo.provider.get_provider_spec()`
(for the entry's `module: acme_echo`) and, at startup, `get_adapter_impl` from
the module the spec names (`module="acme_echo"`: this package), as for its own
remote providers. Kept light: the adapter is imported only when it is built.
"""


async def get_adapter_impl(config, _deps):  # noqa: ANN001 - the release's signature
    from .adapter import AcmeEchoAdapter

    impl = AcmeEchoAdapter(config)
    await impl.initialize()
    return impl
