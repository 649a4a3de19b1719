// The files a listing tool found: name, size and modification time.
import { useStrings } from "../../i18n/I18n";
import type { Language } from "../../i18n/strings";
import type { FileListDetails } from "../../ipc/wire";
import { formatModified, formatSize } from "./file-format";
import { FileIcon, FolderIcon } from "./icons";

interface FileListProps {
  list: FileListDetails;
  language: Language;
}

export function FileList({ list, language }: FileListProps) {
  const strings = useStrings();
  if (list.entries.length === 0) {
    return <p className="file-list-empty">{strings.noFiles}</p>;
  }
  return (
    <div className="file-list" data-testid="file-list">
      <div className="file-list-caption">
        <span>{[list.folder, list.path].filter((part) => part !== "").join(" / ")}</span>
        <span>{strings.fileCount(list.entries.length, list.totalMatched)}</span>
      </div>
      <div className="file-list-scroll">
        <table>
          <thead>
            <tr>
              <th scope="col">{strings.fileName}</th>
              <th scope="col" className="numeric">
                {strings.fileSize}
              </th>
              <th scope="col">{strings.fileModified}</th>
            </tr>
          </thead>
          <tbody>
            {list.entries.map((entry) => (
              <tr key={entry.relativePath === "" ? entry.name : entry.relativePath} data-testid="file-row">
                <td className="file-name" title={entry.relativePath}>
                  {entry.kind === "folder" ? <FolderIcon /> : <FileIcon />}
                  <span>{entry.name}</span>
                </td>
                <td className="numeric">{entry.kind === "folder" ? "" : formatSize(entry.size)}</td>
                <td className="file-modified">{formatModified(entry.modifiedMs, language)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {list.scanTruncated === true ? <p className="file-list-note">{strings.scanTruncated}</p> : null}
    </div>
  );
}
