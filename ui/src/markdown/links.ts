// Which link targets the window may open: http, https and mailto URLs, in the system browser or mail program.
// Anything else (javascript:, data:, file:, relative paths, custom schemes) stays inert text.

const WEB_LINK = /^(?:https?:\/\/[^\s]+|mailto:[^\s]+)$/i;

/** Whether `href` is a URL the window opens (http, https or mailto, no whitespace, nothing before the scheme). */
export function isWebLink(href: string): boolean {
  return WEB_LINK.test(href) && !/[\u0000-\u001f\u007f]/.test(href);
}
