// Tokens and cost of a conversation's answers, derived from the transcript (each assistant message is one model
// call and is counted once, whatever the envelopes that carried it): per answer, the conversation's totals, and
// how full the model's context window was at the last request.
//
// Why the totals are not a sum of `totalTokens` as a count of the conversation: every call's input is the whole
// context so far, so adding calls counts the early messages again at every turn. The totals here are what the
// calls were billed for (input, output and cache tokens of each call, once); the conversation's size is the last
// call's context plus its output.
import type { Usage } from "../ipc/wire";
import type { TranscriptItem } from "./chat";

/** From this share of the context window on, the meter warns that the conversation is about to overflow. */
export const CONTEXT_WARN_RATIO = 0.8;

export interface AnswerUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** US dollars; `null` when the price of the model is not known. */
  cost: number | null;
}

export interface ReportedUsage extends AnswerUsage {
  /** The call's total (pi's `totalTokens`: input, output and cache tokens). */
  total: number;
}

export interface ConversationUsage extends AnswerUsage {
  /** Answers that reported usage. */
  calls: number;
  /** Some answers (not all) had no known price: `cost` adds up those that had one. */
  costPartial: boolean;
  /** The last call's context plus its output: the conversation's size, each token once. */
  conversationTokens: number;
  /** Tokens of context the last call sent (input and cache), or 0 before any. */
  lastContextTokens: number;
}

export type ContextLevel = "ok" | "warn" | "full";

export interface ContextFill {
  tokens: number;
  window: number;
  /** 0..1 and beyond when the last request overflowed. */
  ratio: number;
  level: ContextLevel;
}

/** What a provider reported for one answer; `null` when it reported nothing (all zeros). */
export function answerUsage(usage: Usage | undefined): ReportedUsage | null {
  if (usage === undefined) return null;
  const tokens = usage.input + usage.output + usage.cacheRead + usage.cacheWrite;
  if (tokens === 0 && usage.totalTokens === 0) return null;
  // pi-ai prices each call from the model's rates; a model without a known price has all-zero rates (the
  // known-models table states no zero price), so a zero cost for tokens used means "unknown", not "free".
  const cost = usage.cost.total > 0 ? usage.cost.total : null;
  return {
    input: usage.input,
    output: usage.output,
    cacheRead: usage.cacheRead,
    cacheWrite: usage.cacheWrite,
    total: Math.max(usage.totalTokens, tokens),
    cost,
  };
}

/** Totals over every answer of the transcript, each call once; `null` before any answer reported usage. */
export function conversationUsage(transcript: readonly TranscriptItem[]): ConversationUsage | null {
  const totals: ConversationUsage = {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    cost: 0,
    calls: 0,
    costPartial: false,
    conversationTokens: 0,
    lastContextTokens: 0,
  };
  let priced = 0;
  for (const item of transcript) {
    if (item.kind !== "assistant") continue;
    const usage = answerUsage(item.usage);
    if (usage === null) continue;
    totals.calls += 1;
    totals.input += usage.input;
    totals.output += usage.output;
    totals.cacheRead += usage.cacheRead;
    totals.cacheWrite += usage.cacheWrite;
    if (usage.cost !== null) {
      priced += 1;
      totals.cost = (totals.cost ?? 0) + usage.cost;
    }
    totals.lastContextTokens = usage.input + usage.cacheRead + usage.cacheWrite;
    totals.conversationTokens = usage.total;
  }
  if (totals.calls === 0) return null;
  if (priced === 0) totals.cost = null;
  totals.costPartial = priced > 0 && priced < totals.calls;
  return totals;
}

/** How full the model's window was at the last request; `null` before any request or without a known window. */
export function contextFill(usage: ConversationUsage | null, contextWindow: number | null): ContextFill | null {
  if (usage === null || contextWindow === null || contextWindow <= 0 || usage.lastContextTokens === 0) return null;
  const ratio = usage.lastContextTokens / contextWindow;
  const level: ContextLevel = ratio >= 1 ? "full" : ratio >= CONTEXT_WARN_RATIO ? "warn" : "ok";
  return { tokens: usage.lastContextTokens, window: contextWindow, ratio, level };
}
