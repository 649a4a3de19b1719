// The sidebar's texts in English and Chinese (the app's language decides which).
import type { Language } from "../../i18n/strings";

const en = {
  sidebarLabel: "Conversations",
  newConversation: "New conversation",
  searchPlaceholder: "Search conversations",
  searchLabel: "Search conversations",
  clearSearch: "Clear search",
  noConversations: "No conversations yet.",
  noResults: "Nothing found.",
  moreConversations: "Show older conversations",
  untitled: "New conversation",
  today: "Today",
  yesterday: "Yesterday",
  streaming: "Answering…",
  rename: "Rename",
  renameLabel: "Conversation title",
  exportMarkdown: "Export as MD (Markdown)",
  exportJsonLines: "Export as JSON lines",
  delete: "Delete",
  deleted: (title: string) => `Deleted “${title}”.`,
  undo: "Undo",
  exported: (fileName: string) => `Saved ${fileName}.`,
  showInFolder: "Show in folder",
  notSaved: "History is not being saved.",
  roleUser: "You",
  roleAssistant: "Assistant",
  roleTool: "Tool",
};

export type SidebarStrings = typeof en;

const zh: SidebarStrings = {
  sidebarLabel: "对话",
  newConversation: "新对话",
  searchPlaceholder: "搜索对话",
  searchLabel: "搜索对话",
  clearSearch: "清除搜索",
  noConversations: "还没有对话。",
  noResults: "没有找到。",
  moreConversations: "显示更早的对话",
  untitled: "新对话",
  today: "今天",
  yesterday: "昨天",
  streaming: "正在回答…",
  rename: "重命名",
  renameLabel: "对话标题",
  exportMarkdown: "导出为 MD（Markdown）",
  exportJsonLines: "导出为 JSON lines",
  delete: "删除",
  deleted: (title: string) => `已删除“${title}”。`,
  undo: "撤销",
  exported: (fileName: string) => `已保存 ${fileName}。`,
  showInFolder: "在文件夹中显示",
  notSaved: "对话记录没有被保存。",
  roleUser: "你",
  roleAssistant: "助手",
  roleTool: "工具",
};

export const SIDEBAR_STRINGS: Record<Language, SidebarStrings> = { en, zh };
