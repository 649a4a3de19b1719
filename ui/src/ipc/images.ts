// The images of answers: the host fetches a web image only when the user asks to see it, checks that it is a
// PNG, JPEG, GIF or WebP picture of at most 8 MB, and returns it as a data: URL (the page itself never loads
// an image from the network: its CSP allows images from the app and data: URLs only).
import { invoke } from "@tauri-apps/api/core";

import type { CommandError } from "./wire";

const DATA_IMAGE = /^data:image\/(?:png|jpeg|gif|webp);base64,[A-Za-z0-9+/]+=*$/;

/** The image at `url` as a data: URL; rejects with the host's `{kind, code, detail}`. */
export async function fetchImage(url: string): Promise<string> {
  const dataUrl = await invoke<string>("fetch_image", { url });
  if (!DATA_IMAGE.test(dataUrl)) {
    const error: CommandError = { kind: "invalid", code: "image_refused", detail: "the host returned something that is not an image" };
    throw error;
  }
  return dataUrl;
}
