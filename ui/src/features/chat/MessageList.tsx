// The conversation so far; a hint when there is none yet.
import type { ChatMessage } from "../../state/chat";

interface MessageListProps {
  messages: readonly ChatMessage[];
}

export function MessageList({ messages }: MessageListProps) {
  if (messages.length === 0) {
    return (
      <main className="message-list empty" data-testid="message-list">
        <p className="empty-hint">Ask Pi about the files on your desktop.</p>
      </main>
    );
  }
  return (
    <main className="message-list" data-testid="message-list">
      {messages.map((message) => (
        <article key={message.id} className={`message ${message.role}`} data-testid={`message-${message.role}`}>
          {message.text}
        </article>
      ))}
    </main>
  );
}
