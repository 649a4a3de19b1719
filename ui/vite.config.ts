import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// The Tauri CLI's devUrl (tauri.conf.json) points at this fixed port.
const DEV_PORT = 1420;

export default defineConfig({
  plugins: [react()],
  clearScreen: false,
  server: {
    port: DEV_PORT,
    strictPort: true,
  },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    // Tauri's CSP allows no inline script; keep every asset a file the webview loads from 'self'.
    assetsInlineLimit: 0,
    sourcemap: false,
  },
});
