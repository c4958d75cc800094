"""Extracts what llsd-hook needs from one installed llama-stack release.

Run by scripts/configs-update.sh inside the release's venv, with a scrubbed
environment (fixed HOME, no provider env vars) so that defaults computed at
import time are the same on every machine. Writes, under OUT_DIR:

  distributions/<name>/config.yaml   each shipped distribution's config, verbatim
  registry.json                      APIs, provider types and their config
                                     schemas, and the top-level StackConfig schema

Usage: python extract_llama_stack.py OUT_DIR
"""

from __future__ import annotations

import importlib.metadata
import importlib.resources
import json
import re
import shutil
import sys
from pathlib import Path
from typing import Any

from llama_stack.core.datatypes import StackConfig
from llama_stack.core.distribution import builtin_automatically_routed_apis, get_provider_registry
from llama_stack.core.utils.dynamic import instantiate_class_type
from llama_stack_api import Api

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


def provider_entry(spec: Any) -> dict[str, Any]:
    config_cls = instantiate_class_type(spec.config_class)
    schema = config_cls.model_json_schema(by_alias=True)
    props: dict[str, Any] = schema.get("properties", {})
    return {
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


def main(out_dir: Path) -> None:
    registry = get_provider_registry()
    providable = sorted(api.value for api in registry)
    all_apis = sorted(a.value for a in Api)
    routed = {x.router_api.value: x.routing_table_api.value for x in builtin_automatically_routed_apis()}
    providers = {
        api.value: {ptype: provider_entry(spec) for ptype, spec in sorted(specs.items())}
        for api, specs in sorted(registry.items(), key=lambda kv: kv[0].value)
    }

    dist_root = importlib.resources.files("llama_stack") / "distributions"
    distributions = sorted(
        entry.name for entry in dist_root.iterdir() if entry.is_dir() and (entry / "config.yaml").is_file()
    )
    for name in distributions:
        target = out_dir / "distributions" / name
        target.mkdir(parents=True, exist_ok=True)
        with importlib.resources.as_file(dist_root / name / "config.yaml") as src:
            shutil.copyfile(src, target / "config.yaml")

    registry_doc = {
        "release": importlib.metadata.version("llama-stack"),
        "packages": {p: importlib.metadata.version(p) for p in ("llama-stack", "llama-stack-api")},
        "apis": {
            "all": all_apis,
            "providable": providable,
            "routingTables": sorted(routed.values()),
            "routingTableOf": dict(sorted(routed.items())),
        },
        "distributions": distributions,
        "providers": providers,
        "stackConfigSchema": StackConfig.model_json_schema(by_alias=True),
    }
    (out_dir / "registry.json").write_text(json.dumps(registry_doc, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
