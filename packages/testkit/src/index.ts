export { testServers } from "./servers.ts";
export type { TestServers } from "./servers.ts";
export { uniqueName } from "./names.ts";
export { eventually } from "./eventually.ts";
export { closeTogether, CLOSE_DEADLINE_MS } from "./close-together.ts";
export type { Closeable } from "./close-together.ts";
export { schemaDrift } from "./schema-drift.ts";
export { TEST_SECRET, callAs } from "./callers.ts";
export { ingestArtefact } from "./inventory-artefacts.ts";
export type { ArtefactPut, IngestArtefactOptions } from "./inventory-artefacts.ts";
export type { CallOptions } from "./callers.ts";
export { startService, TEST_KAFKA_FETCH_MAX_WAIT_MS } from "./start-service.ts";
export type { TestService, TestServiceOverrides } from "./start-service.ts";
export { EventReader } from "./event-reader.ts";
export type { RecordSeen } from "./event-reader.ts";
export { followToCallback, identityToken, startTestProvider } from "./oidc-provider.ts";
export { startFulcio, type TestFulcio } from "./fulcio.ts";
export type { Person, TestProvider } from "./oidc-provider.ts";
export { fixturesOf } from "./fixtures.ts";
export type {
  FixtureService,
  PortfolioSeed,
  SandboxTreeFixture,
  ScanMatches,
  ServiceFixtures,
  VulnerabilityMatcherFixture,
} from "./fixtures.ts";
export { generateCycloneDxBom } from "./cyclonedx-generator.ts";
export type { GeneratedBomOptions } from "./cyclonedx-generator.ts";
export { sharedDir } from "./shared-dir.ts";
export { startKafkaBroker } from "./kafka-broker.ts";
export type { TestKafkaBroker } from "./kafka-broker.ts";
export { startS3Server } from "./s3-server.ts";
export type { TestS3Server } from "./s3-server.ts";
export { startTestSmtpServer } from "./smtp-server.ts";
export type { ReceivedMail, TestSmtpServer } from "./smtp-server.ts";
export { startGitServer } from "./git-server.ts";
export { sharedGitea, type SharedGitea } from "./gitea.ts";
export { startGiteaAppHost, type GiteaAppHost } from "./gitea-app-host.ts";
export { startOciRegistry, tarOf, type TarEntry, type TestImage, type TestOciRegistry } from "./oci-registry.ts";
export { startRegistryAuthProxy, type RegistryAuthOptions, type RegistryAuthProxy } from "./registry-auth-proxy.ts";
export { dockerSaveOf, ociLayoutFromRegistry } from "./image-archives.ts";
export type { GitServerRequest, TestGitServer } from "./git-server.ts";
export { freePort } from "./free-port.ts";
export { zipOf } from "./zip-writer.ts";
export type { ZipEntry } from "./zip-writer.ts";
export { cdxgenBin, scancodeBin } from "./tools.ts";
export { osvScannerBinary, osvScannerFindings } from "./osv-scanner.ts";
export { cosignBinary, runCosign, type CosignRun } from "./cosign.ts";
export { publishScanState, type TestProducer } from "./scan-news.ts";
export type {
  OsvScannerFinding,
  OsvScannerInput,
  OsvScannerOptions,
  OsvScannerPackage,
  OsvScannerResult,
} from "./osv-scanner.ts";
export { osvScannerDatabase } from "./osv-scanner-db.ts";
export type { OsvScannerDatabase } from "./osv-scanner-db.ts";
export { startTestWebhookReceiver } from "./webhook-receiver.ts";
export type { ReceivedRequest, TestWebhookReceiver } from "./webhook-receiver.ts";
export { createDatabase, startPortalProcesses } from "./portal-processes.ts";
export type { PortalProcesses, PortalProcessOptions } from "./portal-processes.ts";
export { totp } from "./totp.ts";
