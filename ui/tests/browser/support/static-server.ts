// Serves the built UI (ui/dist) on a free loopback port with the app's real Content-Security-Policy
// (from tauri.conf.json), so the browser test fails if the build needs anything the CSP forbids.
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, normalize, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const UI_DIR = fileURLToPath(new URL("../../../", import.meta.url));
export const DIST_DIR = join(UI_DIR, "dist");
const TAURI_CONF = resolve(UI_DIR, "..", "tauri.conf.json");

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".woff2": "font/woff2",
};

export interface StaticServer {
  url: string;
  close: () => Promise<void>;
}

/** The CSP header Tauri derives from `app.security.csp` (directives joined with "; "). */
export async function appContentSecurityPolicy(): Promise<string> {
  const config = JSON.parse(await readFile(TAURI_CONF, "utf8")) as {
    app: { security: { csp: Record<string, string> } };
  };
  return Object.entries(config.app.security.csp)
    .map(([directive, sources]) => `${directive} ${sources}`)
    .join("; ");
}

export async function serveDist(): Promise<StaticServer> {
  const csp = await appContentSecurityPolicy();
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://localhost").pathname;
    const file = normalize(join(DIST_DIR, path === "/" ? "index.html" : path));
    if (!file.startsWith(DIST_DIR)) {
      response.writeHead(403).end();
      return;
    }
    readFile(file).then(
      (body) => {
        response.writeHead(200, {
          "Content-Type": CONTENT_TYPES[extname(file)] ?? "application/octet-stream",
          "Content-Security-Policy": csp,
        });
        response.end(body);
      },
      () => response.writeHead(404).end(),
    );
  });
  await new Promise<void>((resolveListen) => server.listen(0, "127.0.0.1", resolveListen));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise<void>((resolveClose) => server.close(() => resolveClose())),
  };
}
