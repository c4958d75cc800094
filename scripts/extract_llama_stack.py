"""Extracts what llsd-hook needs from one installed Llama Stack release: the
`llama-stack` package (up to 0.7.x) or its renamed successor `ogx` (0.8.0 on),
whichever the running venv has.

Run by scripts/configs-update.sh inside the release's venv, with a scrubbed
environment (fixed HOME, no provider env vars) so that defaults computed at
import time are the same on every machine. Writes, under OUT_DIR:

  distributions/<name>/config.yaml   each shipped distribution's config, verbatim
  registry.json                      APIs, provider types and their config
                                     schemas, and the top-level StackConfig schema

For `ogx` releases registry.json also carries (the llama-stack output stays
byte-identical to what this script wrote before ogx existed):
  providers.<api>.<type>.fieldAliases  input key -> {field, alias, acceptsFieldName}
                                       for every config field whose YAML key is not
                                       its Python name (vLLM: api_token -> auth_credential)
  apis.internal                        APIs the server always instantiates itself
  serverConfigSchema                   the `server` section's model (StackConfig.server)

Usage: python extract_llama_stack.py OUT_DIR
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.resources
import importlib.util
import inspect
import json
import re
import shutil
import sys
from pathlib import Path
from typing import Any

# The package this venv holds: ogx (module ogx, API module ogx_api) or
# llama-stack (llama_stack, llama_stack_api). Same layout under both names.
if importlib.util.find_spec("ogx") is not None and importlib.util.find_spec("ogx_api") is not None:
    MODULE, API_MODULE, DISTRIBUTION, API_DISTRIBUTION = "ogx", "ogx_api", "ogx", "ogx-api"
else:
    MODULE, API_MODULE, DISTRIBUTION, API_DISTRIBUTION = "llama_stack", "llama_stack_api", "llama-stack", "llama-stack-api"
EXTRAS = MODULE == "ogx"

_datatypes = importlib.import_module(f"{MODULE}.core.datatypes")
_distribution = importlib.import_module(f"{MODULE}.core.distribution")
_dynamic = importlib.import_module(f"{MODULE}.core.utils.dynamic")
StackConfig = _datatypes.StackConfig
builtin_automatically_routed_apis = _distribution.builtin_automatically_routed_apis
get_provider_registry = _distribution.get_provider_registry
instantiate_class_type = _dynamic.instantiate_class_type
Api = importlib.import_module(API_MODULE).Api

URL_NAME = re.compile(r"(^|_)(url|uri)$")
# A string field named like a credential, for providers whose credential is not
# typed SecretStr (e.g. brave-search api_key, pgvector password).
CREDENTIAL_NAME = re.compile(r"(^|_)(api_key|api_token|access_token|token|password|secret|secret_key|secret_access_key)$")


def branches(prop: dict[str, Any]) -> list[dict[str, Any]]:
    """The alternatives of a property schema (anyOf/oneOf members, or itself)."""
    return prop.get("anyOf") or prop.get("oneOf") or [prop]


def is_secret(prop: dict[str, Any]) -> bool:
    return any(b.get("format") == "password" for b in branches(prop))


def is_credential(name: str, prop: dict[str, Any]) -> bool:
    if is_secret(prop):
        return True
    return bool(CREDENTIAL_NAME.search(name)) and any(b.get("type") == "string" for b in branches(prop))


def is_url(name: str, prop: dict[str, Any]) -> bool:
    kinds = branches(prop)
    if any(b.get("format") == "uri" for b in kinds):
        return True
    return bool(URL_NAME.search(name)) and any(b.get("type") == "string" for b in kinds)


def api_values(apis: Any) -> list[str]:
    return sorted(a.value for a in (apis or []))


def field_aliases(config_cls: Any) -> dict[str, dict[str, Any]]:
    """Input key -> {field, alias, acceptsFieldName} for each field whose input
    key is not its Python name, as pydantic validates the model: with an alias
    and without validate_by_name/populate_by_name only the alias is read. An
    AliasChoices alias gives one entry per choice (alias lists them all)."""
    from pydantic import AliasChoices, AliasPath

    config = config_cls.model_config
    by_name = bool(config.get("populate_by_name") or config.get("validate_by_name"))
    out: dict[str, dict[str, Any]] = {}
    for name, field in config_cls.model_fields.items():
        alias = field.validation_alias if field.validation_alias is not None else field.alias
        if alias is None:
            continue
        if isinstance(alias, str):
            keys = [alias]
        elif isinstance(alias, AliasChoices):
            keys = [c if isinstance(c, str) else str(c.path[0]) for c in alias.choices]
        elif isinstance(alias, AliasPath):
            keys = [str(alias.path[0])]
        else:
            keys = [str(alias)]
        for key in keys:
            if key != name:
                out[key] = {"field": name, "alias": keys[0] if len(keys) == 1 else keys, "acceptsFieldName": by_name}
    return dict(sorted(out.items()))


def provider_entry(spec: Any) -> dict[str, Any]:
    config_cls = instantiate_class_type(spec.config_class)
    schema = config_cls.model_json_schema(by_alias=True)
    props: dict[str, Any] = schema.get("properties", {})
    entry = {
        "configSchema": schema,
        "secretFields": sorted(n for n, p in props.items() if is_secret(p)),
        "credentialFields": sorted(n for n, p in props.items() if is_credential(n, p)),
        "urlFields": sorted(n for n, p in props.items() if is_url(n, p)),
        "apiDependencies": api_values(getattr(spec, "api_dependencies", [])),
        "optionalApiDependencies": api_values(getattr(spec, "optional_api_dependencies", [])),
        "deprecationWarning": getattr(spec, "deprecation_warning", None),
        "deprecationError": getattr(spec, "deprecation_error", None),
        "pipPackages": sorted(getattr(spec, "pip_packages", None) or []),
    }
    if EXTRAS:
        entry["fieldAliases"] = field_aliases(config_cls)
    return entry


def internal_apis() -> list[str]:
    """The APIs the server instantiates itself (stack.add_internal_implementations)."""
    stack = importlib.import_module(f"{MODULE}.core.stack")
    return sorted(set(re.findall(r"impls\[Api\.(\w+)\]", inspect.getsource(stack.add_internal_implementations))))


def main(out_dir: Path) -> None:
    registry = get_provider_registry()
    providable = sorted(api.value for api in registry)
    all_apis = sorted(a.value for a in Api)
    routed = {x.router_api.value: x.routing_table_api.value for x in builtin_automatically_routed_apis()}
    providers = {
        api.value: {ptype: provider_entry(spec) for ptype, spec in sorted(specs.items())}
        for api, specs in sorted(registry.items(), key=lambda kv: kv[0].value)
    }

    dist_root = importlib.resources.files(MODULE) / "distributions"
    distributions = sorted(
        entry.name for entry in dist_root.iterdir() if entry.is_dir() and (entry / "config.yaml").is_file()
    )
    for name in distributions:
        target = out_dir / "distributions" / name
        target.mkdir(parents=True, exist_ok=True)
        with importlib.resources.as_file(dist_root / name / "config.yaml") as src:
            shutil.copyfile(src, target / "config.yaml")

    apis: dict[str, Any] = {
        "all": all_apis,
        "providable": providable,
        "routingTables": sorted(routed.values()),
        "routingTableOf": dict(sorted(routed.items())),
    }
    registry_doc: dict[str, Any] = {
        "release": importlib.metadata.version(DISTRIBUTION),
        "packages": {p: importlib.metadata.version(p) for p in (DISTRIBUTION, API_DISTRIBUTION)},
        "apis": apis,
        "distributions": distributions,
        "providers": providers,
        "stackConfigSchema": StackConfig.model_json_schema(by_alias=True),
    }
    if EXTRAS:
        apis["internal"] = internal_apis()
        server_cls = StackConfig.model_fields["server"].annotation
        registry_doc["serverConfigSchema"] = server_cls.model_json_schema(by_alias=True)
    (out_dir / "registry.json").write_text(json.dumps(registry_doc, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
