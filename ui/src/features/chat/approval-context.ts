// The approval questions of the shown conversation and how to answer one, for the tool cards deep in the
// transcript (a context, so the transcript and the messages in between need not carry them).
import { createContext, useContext } from "react";

import type { ApprovalDecision } from "../../ipc/wire";
import type { ApprovalView } from "../../state/chat";

export interface ApprovalAnswers {
  approvals: Readonly<Record<string, ApprovalView>>;
  answer: (view: ApprovalView, decision: ApprovalDecision) => void;
}

export const ApprovalContext = createContext<ApprovalAnswers>({ approvals: {}, answer: () => undefined });

export function useApprovalAnswers(): ApprovalAnswers {
  return useContext(ApprovalContext);
}
