// The texts of token usage, cost and the context meter, in English and Chinese (strings.ts carries them as
// `usage`).

const en = {
  input: "in",
  output: "out",
  cacheRead: "cache read",
  cacheWrite: "cache write",
  costUnknown: "cost unknown",
  costUnknownTitle: "The app has no price for this model, so what this cost is not known.",
  costPartial: (cost: string) => `${cost} + unknown`,
  answerLabel: "Tokens and cost of this answer",
  conversationLabel: "Tokens and cost of this conversation, each model call counted once",
  total: "Total",
  calls: (count: number) => (count === 1 ? "1 call" : `${count} calls`),
  contextLabel: "How full the model's context window was at the last request",
  context: (percent: number, tokens: string, window: string) => `context ${percent}% (${tokens} / ${window})`,
  contextWarn:
    "The conversation nearly fills the model's context window: the next requests may fail or lose the earliest messages. Start a new conversation to keep answers reliable.",
  contextFull:
    "The last request filled the model's context window: answers may fail or miss the earliest messages. Start a new conversation.",
};

export type UsageStrings = typeof en;

const zh: UsageStrings = {
  input: "输入",
  output: "输出",
  cacheRead: "缓存读取",
  cacheWrite: "缓存写入",
  costUnknown: "费用未知",
  costUnknownTitle: "应用没有这个模型的价格，因此不知道这次的费用。",
  costPartial: (cost: string) => `${cost} + 未知`,
  answerLabel: "这条回答的 token 与费用",
  conversationLabel: "这个对话的 token 与费用，每次模型调用只计一次",
  total: "合计",
  calls: (count: number) => `${count} 次调用`,
  contextLabel: "上一次请求时模型上下文窗口的占用",
  context: (percent: number, tokens: string, window: string) => `上下文 ${percent}%（${tokens} / ${window}）`,
  contextWarn: "对话快要占满模型的上下文窗口：之后的请求可能失败或丢失最早的消息。新建对话可让回答保持可靠。",
  contextFull: "上一次请求已占满模型的上下文窗口：回答可能失败或漏掉最早的消息。请新建对话。",
};

export const USAGE_STRINGS = { en, zh };
