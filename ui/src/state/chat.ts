// The chat screen's state and its pure reducer: (state, action) => state, no IO, no module-level mutation.
// Host events from the backend will become actions here; derived facts live in ./selectors.
import type { AppInfo } from "../ipc/wire";

/** Whether a run is going on. Send comes back only when the host reports idle again. */
export type RunStatus = "idle" | "streaming";

export interface ChatMessage {
  id: number;
  role: "user";
  text: string;
}

export interface ChatState {
  status: RunStatus;
  messages: readonly ChatMessage[];
  appInfo: AppInfo | null;
  nextMessageId: number;
}

export type ChatAction =
  /** The backend answered `app_info`. */
  | { type: "app_info_loaded"; appInfo: AppInfo }
  /** The user pressed Send with this composer text. */
  | { type: "user_message_submitted"; text: string };

export const initialChatState: ChatState = {
  status: "idle",
  messages: [],
  appInfo: null,
  nextMessageId: 1,
};

export function chatReducer(state: ChatState, action: ChatAction): ChatState {
  switch (action.type) {
    case "app_info_loaded":
      return { ...state, appInfo: action.appInfo };
    case "user_message_submitted": {
      const text = action.text.trim();
      if (text === "" || state.status !== "idle") {
        return state;
      }
      const message: ChatMessage = { id: state.nextMessageId, role: "user", text };
      return { ...state, messages: [...state.messages, message], nextMessageId: state.nextMessageId + 1 };
    }
    default:
      return assertNever(action);
  }
}

function assertNever(action: never): never {
  throw new Error(`unhandled chat action: ${JSON.stringify(action)}`);
}
