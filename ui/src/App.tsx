import { ChatScreen } from "./features/chat/ChatScreen";

export function App() {
  return <ChatScreen />;
}
