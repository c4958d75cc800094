"""The provider's config class: what the release validates `config:` against."""

from pydantic import BaseModel, Field, SecretStr


class AcmeEchoConfig(BaseModel):
    base_url: str = Field(description="URL of the echo service.")
    api_key: SecretStr | None = Field(default=None, description="Its token.")
    prefix: str = Field(default="echo: ", description="Put before every answer.")
