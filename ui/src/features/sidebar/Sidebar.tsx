// The conversation sidebar: new conversation, search (highlighted snippets), the list by day, and per
// conversation open / rename / export / delete with an undo toast for the backend's undo window.
//
// The sidebar owns only its own data (the list, the search, its toasts). Switching and starting conversations go
// through the chat: `onConversationOpened` receives the opened conversation's state (load it like `get_state`'s),
// `onNewConversation` is the chat's new-conversation intent, `onActiveConversationDeleted` asks the chat to reload
// (`get_state` opens the most recent remaining conversation). `refreshToken` changes whenever the list may have
// changed elsewhere (a run settled, a new conversation), and the sidebar reloads it.
import { useCallback, useEffect, useMemo, useRef, useState } from "react";

import {
  deleteConversation,
  chooseExportPath,
  exportConversation,
  revealExportedFile,
  listConversations,
  openConversation,
  renameConversation,
  restoreConversation,
  searchConversations,
  type ConversationList,
  type ConversationSummary,
  type ExportFormat,
  type SearchHit,
} from "../../ipc/conversations";
import { arrived, earlyOr } from "../../ipc/early";
import { toCommandError } from "../../ipc/backend";
import type { AppState } from "../../ipc/wire";
import { useStrings } from "../../i18n/I18n";
import { commandErrorText, oneLine } from "../../i18n/error-text";
import type { Language } from "../../i18n/strings";
import { ConversationItem } from "./ConversationItem";
import { conversationTitle, dayLabel, hitRoleLabel, localDay, searchQuery, undoDelayMs } from "./sidebar-model";
import { SIDEBAR_STRINGS, type SidebarStrings } from "./sidebar-strings";
import { SnippetText } from "./SnippetText";
import { latestOnly } from "./latest-only";
import "./sidebar.css";

/** How many conversations the list asks for at first, and how many more each time its end comes into view. */
export const LIST_PAGE_SIZE = 100;
/** How far below the visible part of the list its end starts loading more, in px. */
const LOAD_MORE_MARGIN_PX = 600;
/** How long a plain toast (export done, an error) stays, in ms. */
const TOAST_MS = 6000;

export interface SidebarProps {
  language: Language;
  /** The conversation the chat shows (`AppState.conversationId`), or null before one is loaded. */
  activeConversationId: string | null;
  /** The conversations answering now (from the window's event stream): they show the answering dot. */
  answeringIds: readonly string[];
  /** Any value that changes when the list may have changed (a run settled, a new conversation). */
  refreshToken: unknown;
  /** The user switched conversation: the chat clears its transcript and loads this state. */
  onConversationOpened: (appState: AppState) => void;
  /** The user asked for a new conversation (the chat's intent; it calls `new_conversation`). */
  onNewConversation: () => void;
  /** The conversation the chat shows was deleted: the chat reloads with `get_state`. */
  onActiveConversationDeleted: () => void;
  /** Disables the New button (for example while the chat cannot start one). */
  newConversationDisabled?: boolean;
  /** Each new value (above 0) puts the focus into the search box (the window's search shortcut). */
  focusSearchToken?: number;
}

type Toast =
  | { kind: "deleted"; conversationId: string; title: string; undoUntil: number }
  | { kind: "exported"; fileName: string; path: string }
  | { kind: "error"; message: string };

export function Sidebar(props: SidebarProps) {
  const { activeConversationId, refreshToken, onConversationOpened, onActiveConversationDeleted } = props;
  const strings = SIDEBAR_STRINGS[props.language];
  const [list, setList] = useState<ConversationList | null>(() => arrived<ConversationList>("conversationList"));
  const [listLimit, setListLimit] = useState(LIST_PAGE_SIZE);
  const [searchText, setSearchText] = useState("");
  const [hits, setHits] = useState<SearchHit[] | null>(null);
  const [toast, setToast] = useState<Toast | null>(null);
  const mounted = useRef(true);
  const searchInput = useRef<HTMLInputElement>(null);
  const { focusSearchToken = 0 } = props;

  useEffect(() => {
    if (focusSearchToken > 0) searchInput.current?.focus();
  }, [focusSearchToken]);

  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);

  const uiStrings = useStrings();
  const showError = useCallback(
    (error: unknown) => {
      if (mounted.current) setToast({ kind: "error", message: oneLine(commandErrorText(uiStrings, toCommandError(error))) });
    },
    [uiStrings],
  );

  // A year of history is thousands of conversations: the list holds the most recent `listLimit` and grows when
  // its end comes into view.
  const reload = useCallback(() => {
    const ask = () => listConversations(listLimit);
    (listLimit === LIST_PAGE_SIZE ? earlyOr("conversationList", ask) : ask()).then((loaded) => {
      if (mounted.current) setList(loaded);
    }, showError);
  }, [showError, listLimit]);

  useEffect(() => {
    reload();
  }, [reload, refreshToken, activeConversationId]);

  const shownCount = list === null ? 0 : list.days.reduce((count, group) => count + group.conversations.length, 0);
  const showMore = useCallback(() => {
    // Only once the list asked for is in: a scroll while it loads asks for nothing more.
    if (list?.more === true && shownCount >= listLimit) setListLimit(listLimit + LIST_PAGE_SIZE);
  }, [list, shownCount, listLimit]);

  // Search as the user types: each change asks at once, one query at a time, and only the newest waiting one
  // runs; an answer is shown only while its query is still the one in the box.
  const wantedQuery = useRef<string | null>(null);
  const requestSearch = useMemo(
    () =>
      latestOnly((query: string) =>
        searchConversations(query).then(
          (found) => {
            if (mounted.current && wantedQuery.current === query) setHits(found);
          },
          (error: unknown) => {
            if (wantedQuery.current === query) showError(error);
          },
        ),
      ),
    [showError],
  );
  useEffect(() => {
    const query = searchQuery(searchText);
    wantedQuery.current = query;
    if (query === null) setHits(null);
    else requestSearch(query);
  }, [searchText, refreshToken, requestSearch]);

  // Toasts go away by themselves; the undo toast exactly when the backend's undo window closes.
  useEffect(() => {
    if (toast === null) return;
    const delay = toast.kind === "deleted" ? undoDelayMs(toast.undoUntil, Date.now()) : TOAST_MS;
    const timer = window.setTimeout(() => setToast(null), delay);
    return () => window.clearTimeout(timer);
  }, [toast]);

  const activeId = activeConversationId ?? list?.activeId ?? null;

  // Opening the conversation already shown would reload it under a running answer: nothing to do.
  const open = useCallback(
    (conversationId: string) => {
      if (conversationId === activeId) return;
      openConversation(conversationId).then((appState) => {
        onConversationOpened(appState);
        reload();
      }, showError);
    },
    [activeId, onConversationOpened, reload, showError],
  );

  const rename = useCallback(
    (conversationId: string, title: string) => {
      renameConversation(conversationId, title).then(reload, showError);
    },
    [reload, showError],
  );

  const remove = useCallback(
    (conversation: ConversationSummary) => {
      deleteConversation(conversation.id).then((deleted) => {
        if (!mounted.current) return;
        setToast({
          kind: "deleted",
          conversationId: deleted.conversationId,
          title: conversationTitle(conversation, strings),
          undoUntil: deleted.undoUntil,
        });
        if (deleted.wasActive) onActiveConversationDeleted();
        reload();
      }, showError);
    },
    [strings, onActiveConversationDeleted, reload, showError],
  );

  const undoDelete = useCallback(
    (conversationId: string) => {
      setToast(null);
      restoreConversation(conversationId).then(reload, showError);
    },
    [reload, showError],
  );

  // The save dialog asks where; cancelling it writes nothing and says nothing.
  const exportTo = useCallback(
    (conversationId: string, format: ExportFormat) => {
      chooseExportPath(conversationId, format, props.language)
        .then((path) => (path === null ? null : exportConversation(conversationId, format, props.language, path)))
        .then((file) => {
          if (file !== null && mounted.current) setToast({ kind: "exported", fileName: file.fileName, path: file.path });
        }, showError);
    },
    [showError, props.language],
  );

  const showInFolder = useCallback((path: string) => revealExportedFile(path).catch(showError), [showError]);

  const today = localDay(new Date());
  const streamingIds = new Set(props.answeringIds);

  return (
    <nav className="sidebar" aria-label={strings.sidebarLabel} data-testid="sidebar">
      <div className="sidebar-top">
        <button
          type="button"
          className="sidebar-new"
          data-testid="new-conversation"
          disabled={props.newConversationDisabled === true}
          onClick={props.onNewConversation}
        >
          + {strings.newConversation}
        </button>
        <div className="sidebar-search">
          <input
            ref={searchInput}
            type="search"
            data-testid="conversation-search"
            aria-label={strings.searchLabel}
            placeholder={strings.searchPlaceholder}
            value={searchText}
            onChange={(event) => setSearchText(event.target.value)}
            onKeyDown={(event) => {
              if (event.key === "Escape" && searchText !== "") {
                event.preventDefault();
                event.stopPropagation();
                setSearchText("");
              }
            }}
          />
        </div>
      </div>
      {list !== null && list.storage.notices.length > 0 ? (
        <div className="sidebar-storage-notice" role="status" data-testid="storage-notice">
          {!list.storage.persistent ? <strong>{strings.notSaved} </strong> : null}
          {list.storage.notices.map((notice) => (
            <p key={notice}>{notice}</p>
          ))}
        </div>
      ) : null}
      <div className="sidebar-scroll">
        {hits !== null ? (
          <SearchResults hits={hits} strings={strings} onOpen={open} />
        ) : list === null ? null : list.days.length === 0 ? (
          <p className="sidebar-empty">{strings.noConversations}</p>
        ) : (
          list.days.map((group) => (
            <section key={group.day} className="sidebar-day" data-testid="conversation-day" data-day={group.day}>
              <h2 className="sidebar-day-label">{dayLabel(group.day, today, strings)}</h2>
              <ul className="conversation-list">
                {group.conversations.map((conversation) => (
                  <ConversationItem
                    key={conversation.id}
                    conversation={conversation}
                    active={conversation.id === activeId}
                    streaming={streamingIds.has(conversation.id)}
                    strings={strings}
                    onOpen={open}
                    onRename={rename}
                    onDelete={remove}
                    onExport={exportTo}
                  />
                ))}
              </ul>
            </section>
          ))
        )}
        {hits === null && list?.more === true ? (
          <ShowMore label={strings.moreConversations} shown={shownCount} onShowMore={showMore} />
        ) : null}
      </div>
      {toast !== null ? (
        <div
          className={toast.kind === "error" ? "sidebar-toast error" : "sidebar-toast"}
          role={toast.kind === "error" ? "alert" : "status"}
          data-testid="sidebar-toast"
        >
          <span>{toastText(toast, strings)}</span>
          {toast.kind === "deleted" ? (
            <button type="button" data-testid="undo-delete" onClick={() => undoDelete(toast.conversationId)}>
              {strings.undo}
            </button>
          ) : null}
          {toast.kind === "exported" ? (
            <button type="button" data-testid="export-show-in-folder" onClick={() => void showInFolder(toast.path)}>
              {strings.showInFolder}
            </button>
          ) : null}
        </div>
      ) : null}
    </nav>
  );
}

/**
 * The end of a list that has more: a button, pressed by itself when it comes near the visible part. `shown` is
 * how many items are above it: each new count watches afresh, because an end still in view after the list grew
 * (a tall window, or the scroll position kept on it) never stops intersecting, and an observer only reports
 * changes.
 */
function ShowMore({ label, shown, onShowMore }: { label: string; shown: number; onShowMore: () => void }) {
  const button = useRef<HTMLButtonElement>(null);
  const latest = useRef(onShowMore);
  latest.current = onShowMore;
  useEffect(() => {
    const element = button.current;
    if (element === null || typeof IntersectionObserver === "undefined") return;
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((entry) => entry.isIntersecting)) latest.current();
      },
      { root: element.closest(".sidebar-scroll"), rootMargin: `0px 0px ${LOAD_MORE_MARGIN_PX}px 0px` },
    );
    observer.observe(element);
    return () => observer.disconnect();
  }, [shown]);
  return (
    <button ref={button} type="button" className="sidebar-more" data-testid="conversations-more" onClick={onShowMore}>
      {label}
    </button>
  );
}

function toastText(toast: Toast, strings: SidebarStrings): string {
  switch (toast.kind) {
    case "deleted":
      return strings.deleted(toast.title);
    case "exported":
      return strings.exported(toast.fileName);
    case "error":
      return toast.message;
  }
}

function SearchResults({
  hits,
  strings,
  onOpen,
}: {
  hits: readonly SearchHit[];
  strings: (typeof SIDEBAR_STRINGS)["en"];
  onOpen: (conversationId: string) => void;
}) {
  if (hits.length === 0) return <p className="sidebar-empty">{strings.noResults}</p>;
  return (
    <ul className="search-results" data-testid="search-results">
      {hits.map((hit) => (
        <li key={`${hit.conversationId}:${hit.messageSeq}`} data-testid="search-hit">
          <button type="button" className="search-hit" onClick={() => onOpen(hit.conversationId)}>
            <span className="search-hit-title">{conversationTitle({ title: hit.conversationTitle }, strings)}</span>
            <span className="search-hit-role">{hitRoleLabel(hit, strings)}</span>
            <SnippetText parts={hit.snippet} />
          </button>
        </li>
      ))}
    </ul>
  );
}
