// The chat screen: owns the chat state and wires backend calls to reducer actions.
import { useEffect, useReducer } from "react";

import { fetchAppInfo } from "../../ipc/backend";
import { chatReducer, initialChatState } from "../../state/chat";
import { appTitle, canSend, canStop } from "../../state/selectors";
import { Composer } from "./Composer";
import { MessageList } from "./MessageList";
import { RunStatusBadge } from "./RunStatusBadge";

export function ChatScreen() {
  const [state, dispatch] = useReducer(chatReducer, initialChatState);

  useEffect(() => {
    let current = true;
    fetchAppInfo()
      .then((appInfo) => {
        if (current) dispatch({ type: "app_info_loaded", appInfo });
      })
      .catch((error: unknown) => {
        console.error("app_info failed", error);
      });
    return () => {
      current = false;
    };
  }, []);

  return (
    <div className="chat-screen">
      <header className="chat-header">
        <h1 className="chat-title" data-testid="app-title">
          {appTitle(state)}
        </h1>
        <RunStatusBadge status={state.status} />
        <button
          type="button"
          className="icon-button"
          data-testid="settings-button"
          aria-label="Settings"
          title="Settings"
        >
          ⚙
        </button>
      </header>
      <MessageList messages={state.messages} />
      <Composer
        canSend={canSend(state)}
        canStop={canStop(state)}
        onSend={(text) => dispatch({ type: "user_message_submitted", text })}
        onStop={() => undefined}
      />
    </div>
  );
}
