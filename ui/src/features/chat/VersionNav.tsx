// The navigator `‹ 2/3 ›` of a message with several versions (regenerated answers, edited questions).
import { useStrings } from "../../i18n/I18n";
import type { ItemVersion } from "../../state/versions";

interface VersionNavProps {
  version: ItemVersion;
  onStep: (step: -1 | 1) => void;
}

export function VersionNav({ version, onStep }: VersionNavProps) {
  const strings = useStrings().messageActions;
  return (
    <span className="version-nav" data-testid="version-nav" role="group" aria-label={strings.versionOf(version.version, version.versions)}>
      <button
        type="button"
        className="icon-button version-step"
        data-testid="version-prev"
        aria-label={strings.previousVersion}
        title={strings.previousVersion}
        disabled={version.version <= 1}
        onClick={() => onStep(-1)}
      >
        ‹
      </button>
      <span className="version-label" data-testid="version-label">
        {version.version}/{version.versions}
      </span>
      <button
        type="button"
        className="icon-button version-step"
        data-testid="version-next"
        aria-label={strings.nextVersion}
        title={strings.nextVersion}
        disabled={version.version >= version.versions}
        onClick={() => onStep(1)}
      >
        ›
      </button>
    </span>
  );
}
