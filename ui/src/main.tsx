import { StrictMode } from "react";
import { createRoot } from "react-dom/client";

import { App } from "./App";
import { QuickAsk } from "./features/quick-ask/QuickAsk";
import { getSettings, fetchAppInfo } from "./ipc/backend";
import { listConversations } from "./ipc/conversations";
import { askEarly, earlyAnswersIn } from "./ipc/early";
import { providerStatus } from "./ipc/models";
import { isQuickAskWindow } from "./ipc/quick-ask";
import { LIST_PAGE_SIZE } from "./features/sidebar/Sidebar";
import { warmUpRenderer } from "./markdown/markdown-renderer";
import "katex/dist/katex.min.css";
import "./styles.css";

const root = document.getElementById("root");
if (root === null) {
  throw new Error("index.html has no #root element");
}
/** How long the first render waits for the main window's early answers; they take some 30 ms. */
const FIRST_RENDER_WAITS_AT_MOST_MS = 150;

// The main window's first answers are asked for before React's first frame, which shows those that came by then
// (ipc/early).
const quickAsk = isQuickAskWindow();
if (!quickAsk) {
  askEarly("settings", getSettings);
  askEarly("providerStatus", providerStatus);
  askEarly("appInfo", fetchAppInfo);
  askEarly("conversationList", () => listConversations(LIST_PAGE_SIZE));
}
const render = () => {
  // One page for both windows: the quick-ask window's label picks its own screen.
  createRoot(root).render(<StrictMode>{quickAsk ? <QuickAsk /> : <App />}</StrictMode>);
  // After the first frame is drawn, so the worker does not compete with it.
  requestAnimationFrame(() => setTimeout(warmUpRenderer, 0));
};
if (quickAsk) render();
else void earlyAnswersIn(FIRST_RENDER_WAITS_AT_MOST_MS).then(render);
