// The texts of attachments (the composer's chips and their problems, the sent message's thumbnails), in English
// and Chinese (strings.ts carries them as `attachments`).

const en = {
  attach: "Attach images or files (PNG, JPEG, GIF, WebP; PDF, text, Markdown, code)",
  remove: (name: string) => `Remove ${name}`,
  reading: "reading…",
  pages: (count: number) => (count === 1 ? "1 page" : `${count} pages`),
  truncated: "cut: only the first 100,000 characters go to the model",
  dismiss: "Dismiss",
  image: (name: string) => `Image ${name}`,
  sentImage: (index: number) => `Attached image ${index}`,
  sentFile: "Attached file",
  noImageInput: (model: string) =>
    `${model} does not read images, so this message cannot be sent with them. Remove the images, or choose a model that reads images.`,
  tooManyImages: (max: number) => `A message can carry at most ${max} images.`,
  tooManyFiles: (max: number) => `A message can carry at most ${max} files.`,
  imageTooLarge: (name: string, maxMb: number) => `${name} is larger than ${maxMb} MB; attach a smaller image.`,
  fileTooLarge: (name: string, maxMb: number) => `${name} is larger than ${maxMb} MB; attach a smaller file.`,
  notAnImage: (name: string) => `${name} is not a PNG, JPEG, GIF or WebP image (its contents say otherwise).`,
  unsupportedImage: (name: string) => `${name} is an image type the app does not send; attach PNG, JPEG, GIF or WebP.`,
  unreadable: (name: string) => `${name} could not be read from the disk.`,
  fileProblem: (name: string, problem: string) => `${name}: ${problem}`,
};

export type AttachmentStrings = typeof en;

const zh: AttachmentStrings = {
  attach: "附加图片或文件（PNG、JPEG、GIF、WebP；PDF、文本、Markdown、代码）",
  remove: (name: string) => `移除 ${name}`,
  reading: "读取中…",
  pages: (count: number) => `${count} 页`,
  truncated: "已截断：只有前 100,000 个字符会发给模型",
  dismiss: "关闭",
  image: (name: string) => `图片 ${name}`,
  sentImage: (index: number) => `附加的图片 ${index}`,
  sentFile: "附加的文件",
  noImageInput: (model: string) => `${model} 不能读取图片，因此这条消息无法带着图片发送。请移除图片，或选择能读取图片的模型。`,
  tooManyImages: (max: number) => `一条消息最多附加 ${max} 张图片。`,
  tooManyFiles: (max: number) => `一条消息最多附加 ${max} 个文件。`,
  imageTooLarge: (name: string, maxMb: number) => `${name} 超过 ${maxMb} MB，请附加更小的图片。`,
  fileTooLarge: (name: string, maxMb: number) => `${name} 超过 ${maxMb} MB，请附加更小的文件。`,
  notAnImage: (name: string) => `${name} 不是 PNG、JPEG、GIF 或 WebP 图片（文件内容与之不符）。`,
  unsupportedImage: (name: string) => `${name} 的图片类型无法发送，请附加 PNG、JPEG、GIF 或 WebP。`,
  unreadable: (name: string) => `无法从磁盘读取 ${name}。`,
  fileProblem: (name: string, problem: string) => `${name}：${problem}`,
};

export const ATTACHMENT_STRINGS = { en, zh };
