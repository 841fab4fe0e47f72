// The replay clock that the replay viewer and /compare play by: `ui.speed` times the recorded
// rate, ticks carried over between animation frames, and no new seek before the last one has
// landed (the maps reach a tick before the clock moves on). `draw(now)` runs every frame.
export function playClock({ ui, ticksPerSecond, clamp, last, seek, pause, draw }) {
  let before = performance.now();
  let owed = 0; // ticks due but not yet a whole one
  let advancing = false;
  function frame(now) {
    const dt = Math.min(0.25, (now - before) / 1000); // a hidden tab does not jump ahead
    before = now;
    if (ui.playing && !advancing) {
      owed += dt * ui.speed * ticksPerSecond;
      const n = Math.floor(owed);
      if (n >= 1) {
        owed -= n;
        const target = clamp(ui.tick + n);
        advancing = true;
        seek(target).finally(() => { advancing = false; });
        if (target >= last()) pause();
      }
    }
    draw(now);
    requestAnimationFrame(frame);
  }
  requestAnimationFrame(frame);
}
