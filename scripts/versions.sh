# Pinned versions of everything the set-up installs: the one place to bump them.
NODE_VERSION=24.21.0
PNPM_VERSION=12.21.0
KAFKA_VERSION=4.4.0
SCANCODE_VERSION=32.5.0
CDXGEN_VERSION=12.8.4
HELM_VERSION=v4.3.1
MOTO_VERSION=5.2.5
