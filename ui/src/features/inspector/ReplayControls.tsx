// The controls of a replay: play or pause, one event at a time, the speed (1× to 100×), where it stands, and
// the way back to the live conversation.
import type { Language } from "../../i18n/strings";
import { inspectorStrings } from "./inspector-strings";
import { isFinished, REPLAY_SPEEDS, type ReplaySpeed } from "./replay";
import type { ReplayControls as Controls } from "./useReplay";

export function ReplayControls({ language, controls }: { language: Language; controls: Controls }) {
  const strings = inspectorStrings(language);
  const { replay } = controls;
  if (replay === null) return null;
  const finished = isFinished(replay);
  return (
    <div className="replay-controls" data-testid="replay-controls" data-state={finished ? "finished" : replay.playing ? "playing" : "paused"}>
      <span className="replay-note">{finished ? strings.replayDone : strings.replaying}</span>
      <button
        type="button"
        className="ghost-button"
        data-testid="replay-play"
        disabled={finished}
        onClick={replay.playing ? controls.pause : controls.play}
      >
        {replay.playing ? strings.pause : strings.play}
      </button>
      <button type="button" className="ghost-button" data-testid="replay-step" disabled={finished} onClick={controls.step}>
        {strings.step}
      </button>
      <label className="replay-speed">
        <span>{strings.speed}</span>
        <select
          data-testid="replay-speed"
          value={replay.speed}
          onChange={(event) => controls.setSpeed(Number(event.target.value) as ReplaySpeed)}
        >
          {REPLAY_SPEEDS.map((speed) => (
            <option key={speed} value={speed}>
              {speed}×
            </option>
          ))}
        </select>
      </label>
      <span className="replay-position" data-testid="replay-position">
        {strings.position(replay.position, replay.lines.length)}
      </span>
      <button type="button" className="ghost-button" data-testid="replay-end" onClick={controls.end}>
        {strings.endReplay}
      </button>
    </div>
  );
}
