// The connection and the models: whether a provider is usable, the local servers that answer, Test connection,
// the provider's model list and the model of one conversation. Like backend.ts, the only other place that calls
// invoke; components see plain functions and wire types.
import { invoke } from "@tauri-apps/api/core";

import type { ConnectionReport } from "./bindings/ConnectionReport";
import type { ConnectionTestInput } from "./bindings/ConnectionTestInput";
import type { LocalServer } from "./bindings/LocalServer";
import type { ModelEntry } from "./bindings/ModelEntry";
import type { ModelListView } from "./bindings/ModelListView";
import type { Problem } from "./bindings/Problem";
import type { ProviderStatus } from "./bindings/ProviderStatus";

export type { ConnectionReport, ConnectionTestInput, LocalServer, ModelEntry, ModelListView, Problem, ProviderStatus };

/** Whether the saved settings name a usable provider (and which model), or what is missing. */
export function providerStatus(): Promise<ProviderStatus> {
  return invoke<ProviderStatus>("provider_status");
}

/** The local Ollama and llama.cpp servers that answer now, with their models. */
export function detectLocalServers(): Promise<LocalServer[]> {
  return invoke<LocalServer[]>("detect_local_servers");
}

/** Reaches the provider the form names (its typed key, else the stored one); says what failed; lists its models. */
export function testConnection(input: ConnectionTestInput): Promise<ConnectionReport> {
  return invoke<ConnectionReport>("test_connection", { input });
}

/** The saved provider's models: the cached list unless `refresh`. */
export function listModels(refresh: boolean): Promise<ModelListView> {
  return invoke<ModelListView>("list_models", { refresh });
}

/** Chooses the model of conversation `conversationId`; its next turn uses it. */
export function setConversationModel(conversationId: string, model: string): Promise<null> {
  return invoke<null>("set_conversation_model", { conversationId, model });
}
