"""Checks Llama Stack config.yaml files the way the real server would, with the
llama-stack package of one release (run it with that release's venv python).

It runs the same top-level parse as `llama stack run`
(llama_stack.core.configure.parse_and_maybe_upgrade_config: env substitution,
then StackConfig), instantiates every enabled provider's config class from the
provider registry (what the server does at startup), and adds the checks the
library leaves to startup time or never makes: storage references, registered
resources, `apis` coverage, provider API dependencies, and keys that pydantic
silently drops (unknown keys), at every level.

Usage:
  python validate.py CONFIG.yaml [ENV_JSON]
      -> {"findings": [{"code", "path", "message"}, ...]}
  python validate.py --batch < [{"name", "configPath" | "configYaml", "env"}, ...]
      -> {"results": {NAME: {"findings": [...], "seconds": S}}, "importSeconds": S}

ENV_JSON is the whole environment the container would have (a JSON object of
strings): `${env.X}` is resolved against it and nothing else. Exit status is 0
whenever the findings could be computed; non-zero means the validator broke.
"""

from __future__ import annotations

import copy
import inspect
import json
import os
import re
import sys
import time
import traceback
import types
import typing
import warnings
from contextlib import contextmanager
from typing import Any, Iterator

_START = time.monotonic()
# Library logging must not reach stdout, which carries the JSON answer.
_STDOUT = sys.stdout
sys.stdout = sys.stderr
os.environ.setdefault("LLAMA_STACK_LOGGING", "all=critical")

import yaml  # noqa: E402
from pydantic import AliasChoices, AliasPath, BaseModel, TypeAdapter, ValidationError  # noqa: E402

from llama_stack.core import stack as ls_stack  # noqa: E402
from llama_stack.core.configure import parse_and_maybe_upgrade_config  # noqa: E402
from llama_stack.core.datatypes import Provider, RegisteredResources, StackConfig  # noqa: E402
from llama_stack.core.distribution import builtin_automatically_routed_apis, get_provider_registry  # noqa: E402
from llama_stack.core.stack import EnvVarError, replace_env_vars  # noqa: E402
from llama_stack.core.storage.datatypes import (  # noqa: E402
    KVStoreReference,
    ServerStoresConfig,
    SqlStoreReference,
    StorageConfig,
)
from llama_stack.core.utils.dynamic import instantiate_class_type  # noqa: E402
from llama_stack_api import Api, RemoteProviderSpec  # noqa: E402

IMPORT_SECONDS = time.monotonic() - _START

# --- what the installed release says -------------------------------------------------

REGISTRY = get_provider_registry()
ROUTED = builtin_automatically_routed_apis()
ROUTER_APIS = {info.router_api.value for info in ROUTED}
ROUTING_TABLE_OF = {info.router_api.value: info.routing_table_api.value for info in ROUTED}
ROUTER_OF_TABLE = {table: router for router, table in ROUTING_TABLE_OF.items()}
ALL_APIS = {api.value for api in Api}
PROVIDABLE_APIS = {api.value for api in REGISTRY}
# The APIs the server always instantiates itself (add_internal_implementations).
INTERNAL_APIS = set(re.findall(r"impls\[Api\.(\w+)\]", inspect.getsource(ls_stack.add_internal_implementations)))
if not INTERNAL_APIS:
    raise RuntimeError("could not read the internal APIs from llama_stack.core.stack.add_internal_implementations")
# registered_resources categories the server registers, and the API serving each
# (llama_stack.core.stack.RESOURCES; 0.7 no longer registers tool_groups).
RESOURCE_APIS = {entry[0]: ROUTER_OF_TABLE.get(entry[1].value, entry[1].value) for entry in ls_stack.RESOURCES}
RESOURCE_ID_FIELDS = list(ls_stack.RESOURCE_ID_FIELDS)
# Keys outside StackConfig that the server still reads from the raw YAML
# (create_app() reads `logging_config` itself).
EXTRA_TOP_LEVEL_KEYS = {"logging_config"} if "logging_config" in inspect.getsource(
    sys.modules["llama_stack.core.server.server"] if "llama_stack.core.server.server" in sys.modules else _import_server()  # type: ignore[name-defined]  # noqa: F821
) else set()
