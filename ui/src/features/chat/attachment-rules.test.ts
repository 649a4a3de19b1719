import { describe, expect, it } from "vitest";

import type { AttachedFile } from "../../ipc/wire";
import {
  admissionProblem,
  hasImages,
  isImageFile,
  MAX_FILES,
  MAX_IMAGES,
  promptFiles,
  promptImages,
  sniffImageType,
  stillReading,
  type PendingAttachment,
} from "./attachment-rules";

const MB = 1024 * 1024;
const image = (id: string): PendingAttachment => ({ id, kind: "image", name: `${id}.png`, status: "ready", mimeType: "image/png", data: "iVBORw0KGgo=" });
const attached: AttachedFile = { name: "plan.md", format: "markdown", text: "# Plan", totalChars: 6, truncated: false };
const file = (id: string): PendingAttachment => ({ id, kind: "file", name: `${id}.md`, status: "ready", file: attached });

describe("attachment rules", () => {
  it("takes an image by its type or its name, anything else as a file", () => {
    expect(isImageFile({ name: "shot.png", type: "image/png", size: 1 })).toBe(true);
    expect(isImageFile({ name: "SHOT.JPG", type: "", size: 1 })).toBe(true);
    expect(isImageFile({ name: "report.pdf", type: "application/pdf", size: 1 })).toBe(false);
    expect(isImageFile({ name: "main.rs", type: "", size: 1 })).toBe(false);
  });

  it("refuses image types the host does not send", () => {
    expect(admissionProblem({ name: "logo.svg", type: "image/svg+xml", size: 10 }, [])).toEqual({ code: "unsupportedImage", name: "logo.svg" });
    expect(admissionProblem({ name: "scan.bmp", type: "image/bmp", size: 10 }, [])).toEqual({ code: "unsupportedImage", name: "scan.bmp" });
    expect(admissionProblem({ name: "ok.webp", type: "image/webp", size: 10 }, [])).toBeNull();
  });

  it("checks sizes before reading: images up to 10 MB, files up to 20 MB", () => {
    expect(admissionProblem({ name: "a.png", type: "image/png", size: 10 * MB }, [])).toBeNull();
    expect(admissionProblem({ name: "a.png", type: "image/png", size: 10 * MB + 1 }, [])).toEqual({ code: "imageTooLarge", name: "a.png" });
    expect(admissionProblem({ name: "a.pdf", type: "application/pdf", size: 20 * MB }, [])).toBeNull();
    expect(admissionProblem({ name: "big.pdf", type: "application/pdf", size: 50 * MB }, [])).toEqual({ code: "fileTooLarge", name: "big.pdf" });
  });

  it("counts images and files apart, against the chips already there", () => {
    const images = Array.from({ length: MAX_IMAGES }, (_, index) => image(`i${index}`));
    expect(admissionProblem({ name: "one-more.png", type: "image/png", size: 1 }, images)).toEqual({ code: "tooManyImages" });
    expect(admissionProblem({ name: "notes.txt", type: "text/plain", size: 1 }, images)).toBeNull();
    const files = Array.from({ length: MAX_FILES }, (_, index) => file(`f${index}`));
    expect(admissionProblem({ name: "more.txt", type: "text/plain", size: 1 }, files)).toEqual({ code: "tooManyFiles" });
    expect(admissionProblem({ name: "a.gif", type: "image/gif", size: 1 }, files)).toBeNull();
  });

  it("knows an image by its first bytes, so a program renamed .png is not one", () => {
    const bytes = (...values: number[]) => new Uint8Array(values);
    expect(sniffImageType(bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0))).toBe("image/png");
    expect(sniffImageType(bytes(0xff, 0xd8, 0xff, 0xe0))).toBe("image/jpeg");
    expect(sniffImageType(new TextEncoder().encode("GIF89a..."))).toBe("image/gif");
    expect(sniffImageType(new TextEncoder().encode("RIFF\0\0\0\0WEBPVP8 "))).toBe("image/webp");
    expect(sniffImageType(new TextEncoder().encode("MZ\x90\0\x03\0\0\0"))).toBeNull();
    expect(sniffImageType(new TextEncoder().encode("<svg xmlns="))).toBeNull();
    expect(sniffImageType(bytes())).toBeNull();
  });

  it("sends ready images and files, and waits while one is read", () => {
    const reading: PendingAttachment = { id: "r", kind: "file", name: "big.pdf", status: "reading" };
    const pending = [image("i1"), file("f1"), reading];
    expect(promptImages(pending)).toEqual([{ data: "iVBORw0KGgo=", mimeType: "image/png" }]);
    expect(promptFiles(pending)).toEqual([{ name: "plan.md", text: "# Plan" }]);
    expect(stillReading(pending)).toBe(true);
    expect(stillReading([image("i1")])).toBe(false);
    expect(hasImages([file("f1")])).toBe(false);
    expect(hasImages([{ id: "r", kind: "image", name: "a.png", status: "reading" }])).toBe(true);
  });
});
