/** Public face of the provider layer. */
export type * from "./types.ts";
export { CORE_PROVIDERS, LOCAL_PRESETS, providerTable, trimBaseUrl } from "./table.ts";
export type { ProviderInfo } from "./table.ts";
export { detectProvider, unfoldModelRef } from "./detect.ts";
export type { ModelRef, ProviderTable } from "./detect.ts";
export { namesServer, resolveModelRef } from "./model_ref.ts";
export type { ResolvedModel } from "./model_ref.ts";
export { reasoningFields } from "./reasoning.ts";
export { buildPayload } from "./payload.ts";
export { createChatClient, STREAM_ENDED_EARLY } from "./sse_client.ts";
export type { ChatClientOptions } from "./sse_client.ts";
export { approvalGate, resolveConnection } from "./connect.ts";
export type { ApprovalRequest, Connection } from "./connect.ts";
export { getKey, loadProviders, providersPath, removeEntry, setEntry } from "./registry_file.ts";
export type { ProviderEntry, ProviderRegistry, RegistryOptions } from "./registry_file.ts";
export { isApproved, loadApprovedModels, modelsPath, recordApproval } from "./models_file.ts";
export type { ApprovedModel, ModelsOptions } from "./models_file.ts";
export { CONTEXT_OVERFLOW, isContextOverflow, overflowWindow } from "./context_overflow.ts";
