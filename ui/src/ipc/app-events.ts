// Events the backend sends the window beside the envelope stream. A clicked system notification asks the window
// to open its conversation (src-tauri/src/notifications.rs), the tray menu's New conversation for a new one
// (src-tauri/src/tray.rs); both once the window is in front.
import { listen } from "@tauri-apps/api/event";

/** The event's name and payload, as src-tauri names them. */
export const OPEN_CONVERSATION_EVENT = "open-conversation-requested";
interface OpenConversationRequest {
  conversationId: string;
}

/**
 * Calls `onRequest` with the conversation's id each time a clicked notification asks to open one. Resolves with
 * the function that stops listening; rejects when the window cannot listen (then no click reaches it).
 */
export function onOpenConversationRequested(onRequest: (conversationId: string) => void): Promise<() => void> {
  return listen<OpenConversationRequest>(OPEN_CONVERSATION_EVENT, (event) => onRequest(event.payload.conversationId));
}

/** The tray menu's event, as src-tauri names it. */
export const NEW_CONVERSATION_EVENT = "new-conversation-requested";

/** Calls `onRequest` each time the tray menu asks for a new conversation; resolves and rejects as above. */
export function onNewConversationRequested(onRequest: () => void): Promise<() => void> {
  return listen<null>(NEW_CONVERSATION_EVENT, () => onRequest());
}
