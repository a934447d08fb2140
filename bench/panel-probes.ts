/**
 * Scripts run inside the panel page. They measure in the page's own clock (performance.now(), 0 = navigation
 * start), so no Playwright round trip is in the numbers.
 */

/** What the Activity probe records on `window.__sandpitBench` (ms since navigation start). */
export interface ActivityMarks {
  /** The panel answered (data-connection="ready") and the probe clicked "Activity". */
  ready?: number;
  /** The first activity row is in the DOM. */
  firstRow?: number;
  /** The animation frame that paints it began. */
  firstRowFrame?: number;
}

/**
 * An init script: as soon as the panel is connected it clicks "Activity" itself, then notes when the first
 * row appears and the frame that paints it.
 */
export const ACTIVITY_PROBE = `(() => {
  const marks = {};
  window.__sandpitBench = marks;
  let clicked = false;
  const check = () => {
    if (!clicked) {
      const ready = document.querySelector('[data-testid="app"][data-connection="ready"]');
      const nav = document.querySelector('[data-testid="nav-activity"]');
      if (!ready || !nav) return;
      clicked = true;
      marks.ready = performance.now();
      nav.click();
    }
    if (marks.firstRow === undefined && document.querySelector('[data-testid="activity-row"]')) {
      marks.firstRow = performance.now();
      requestAnimationFrame(() => {
        marks.firstRowFrame = performance.now();
      });
      observer.disconnect();
    }
  };
  const observer = new MutationObserver(check);
  observer.observe(document, { childList: true, subtree: true, attributes: true, attributeFilter: ['data-connection'] });
})();`;

/**
 * Starts recording the time between animation frames into `window.__sandpitFrames` (a string, not a function:
 * tsx's compiled functions may call helpers the page does not have).
 */
export const START_FRAME_RECORDER = `(() => {
  window.__sandpitFrames = [];
  window.__sandpitRecording = true;
  let last;
  const loop = (time) => {
    if (last !== undefined) window.__sandpitFrames.push(time - last);
    last = time;
    if (window.__sandpitRecording) requestAnimationFrame(loop);
  };
  requestAnimationFrame(loop);
})()`;

/** Stops the recorder; evaluates to the frame deltas in ms. */
export const STOP_FRAME_RECORDER = `(() => {
  window.__sandpitRecording = false;
  return window.__sandpitFrames;
})()`;
