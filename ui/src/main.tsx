import { StrictMode } from "react";
import { createRoot } from "react-dom/client";

import { App } from "./App";
import { QuickAsk } from "./features/quick-ask/QuickAsk";
import { isQuickAskWindow } from "./ipc/quick-ask";
import { warmUpRenderer } from "./markdown/markdown-renderer";
import "katex/dist/katex.min.css";
import "./styles.css";

const root = document.getElementById("root");
if (root === null) {
  throw new Error("index.html has no #root element");
}
// One page for both windows: the quick-ask window's label picks its own screen.
createRoot(root).render(<StrictMode>{isQuickAskWindow() ? <QuickAsk /> : <App />}</StrictMode>);
// After the first frame is drawn, so the worker does not compete with it.
requestAnimationFrame(() => setTimeout(warmUpRenderer, 0));
