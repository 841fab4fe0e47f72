"""Live delivery: frames to spectators, scoped observations to players and followers.

Runs as the pipeline's "live" observer on the runner thread, so it must never block. Each client's
Socket.IO send queue is checked every tick: a spectator whose backlog passes HIGH_WATER leaves
the frame room (nothing more is queued for it) and, once it has drained below LOW_WATER, gets a
fresh keyframe and rejoins. A player or follower whose backlog is high simply skips that
observation — each observation is complete, so the latest one wins.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from asiworld.pipeline import Tick
from asiworld.realtime import WorldRunner
from asiworld.replay.compact import EntityPacker
from asiworld.server.auth import new_token
from asiworld.server.extensions import AGENTS, SERVICES, STORE, socketio

if TYPE_CHECKING:
    from flask import Flask

log = logging.getLogger(__name__)

SPECTATORS = "spectators"
NAMESPACE = "/"
HIGH_WATER = 40  # queued packets before a spectator is dropped to keyframes
LOW_WATER = 2
FOLLOW_EVERY = 2  # ticks between follow observations (full memory is ~16 KB)


class WireFrames:
    """Frames as spectators get them: an entity seen before travels as a patch of the fields
    that changed (`entity_patches`, as in a replay's chunks: app/replay/compact.py), so a crowd
    that only walks sends its positions, not every character's pack, each tick. Every spectator
    in the room holds the same entities (a keyframe, then every frame), so one patch fits them
    all. A tick nobody received must `reset()`: the patches after it start from whole entities."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self._packer = EntityPacker()

    def pack(self, frame: dict) -> dict:
        wire = self._packer.pack(frame)
        for gone in (frame.get("deltas") or {}).get("removed") or ():
            self._packer.last.pop(str(gone), None)  # a page deletes it: if it comes back, whole
        return wire


@dataclass
class Spectator:
    sid: str
    stale: bool = False
    follow: int | None = None


@dataclass
class Seat:
    """A browser player's claim on one character; the token survives reconnects."""

    token: str
    char: int
    name: str
    sids: set[str] = field(default_factory=set)
    full_memory_due: bool = True


class LiveRooms:
    def __init__(self, socketio: Any, runner: WorldRunner) -> None:
        self.socketio = socketio
        # The Socket.IO server bound to *this* app: the module-level SocketIO is re-bound by each
        # create_app, and the runner thread must keep talking to its own app's clients.
        self.server = socketio.server
        self.runner = runner
        self.spectators: dict[str, Spectator] = {}
        self.seats: dict[str, Seat] = {}  # token -> seat
        self.seat_of_sid: dict[str, Seat] = {}
        self.dropped_to_keyframe = 0  # how often a slow spectator was resynchronised
        self.fanout: Any = None  # a fanout.Fanout with --message-queue: frames to front ends
        self.wire = WireFrames()
        runner.pipeline.add_observer("live", self.on_tick, on_replace=self.world_replaced)

    # --- membership (called on the runner thread via runner.call) ---------------------------

    def add_spectator(self, sid: str) -> dict:
        """Send a keyframe, then put the client in the frame room, on the runner thread so no
        delta can slip in between the two."""

        def join() -> dict:
            spectator = self.spectators.setdefault(sid, Spectator(sid))
            spectator.stale = False
            keyframe = self.runner.keyframe()
            self._emit("frame", keyframe, sid)
            self.server.enter_room(sid, SPECTATORS, namespace=NAMESPACE)
            return {"tick": keyframe["tick"]}

        return self.runner.call(join)

    def follow(self, sid: str, char: int | None) -> dict | None:
        def set_follow() -> dict | None:
            spectator = self.spectators.setdefault(sid, Spectator(sid))
            spectator.follow = char
            if char is None:
                return None
            return self._observe(char, full_memory=True, consume=False)

        return self.runner.call(set_follow)

    def seat(self, sid: str, name: str) -> Seat:
        cid = self.runner.add_character(name=name, label="human")
        seat = Seat(token=new_token(16), char=cid, name=name)
        self.runner.call(lambda: self._sit(seat, sid))
        return seat

    def reseat(self, sid: str, token: str) -> Seat | None:
        seat = self.seats.get(token)
        if seat is not None:
            self.runner.call(lambda: self._sit(seat, sid))
        return seat

    def _sit(self, seat: Seat, sid: str) -> None:
        self.seats[seat.token] = seat
        seat.sids.add(sid)
        seat.full_memory_due = True
        self.seat_of_sid[sid] = seat

    def observe_for(self, seat: Seat, full_memory: bool = False) -> dict:
        return self.runner.call(lambda: self._observe(seat.char, full_memory))

    def forget(self, sid: str) -> None:
        def drop() -> None:
            self.spectators.pop(sid, None)
            seat = self.seat_of_sid.pop(sid, None)
            if seat is not None:
                seat.sids.discard(sid)

        self.runner.call(drop)

    def world_replaced(self, pipeline: Any) -> None:
        """A fork: browser seats of the old world are dropped (their character ids now name
        other characters) and every spectator gets a keyframe of the new world, then its deltas."""
        self.seats.clear()
        self.seat_of_sid.clear()
        self.wire.reset()  # the new world's entities are new
        for sid in list(self.spectators):
            self.add_spectator(sid)
        if self.fanout is not None:
            self.fanout.keyframe_to_all(self.runner.keyframe())

    def seat_on(self, char: int, name: str) -> Seat:
        """A browser seat on an existing character (a fork's take-over); its token is returned
        for the player's page to claim."""
        seat = Seat(token=new_token(16), char=char, name=name)
        self.runner.call(lambda: self.seats.__setitem__(seat.token, seat))
        return seat

    # --- every tick (runner thread) ---------------------------------------------------------

    def on_tick(self, info: Tick) -> None:
        if self.fanout is not None or self.spectators:
            frame = self.wire.pack(info.frame)
            if self.fanout is not None:
                self.fanout.frame(frame)
        else:
            self.wire.reset()  # nobody saw this tick: the next patches start afresh
        if self.spectators:
            self.server.emit("frame", frame, to=SPECTATORS, namespace=NAMESPACE)
            self._pace_spectators()
            if info.tick % FOLLOW_EVERY == 0:
                self._send_follows()
        self._send_observations()

    def _pace_spectators(self) -> None:
        for spectator in list(self.spectators.values()):
            queued = self._backlog(spectator.sid)
            if not spectator.stale and queued > HIGH_WATER:
                spectator.stale = True
                self.dropped_to_keyframe += 1
                self.server.leave_room(spectator.sid, SPECTATORS, namespace=NAMESPACE)
            elif spectator.stale and queued <= LOW_WATER:
                self.add_spectator(spectator.sid)

    def _send_follows(self) -> None:
        cache: dict[int, dict] = {}
        for spectator in list(self.spectators.values()):
            char = spectator.follow
            if char is None or spectator.stale or self._backlog(spectator.sid) > HIGH_WATER:
                continue
            if char not in cache:
                obs = self._observe(char, full_memory=True, consume=False)
                if obs is None:
                    spectator.follow = None
                    continue
                cache[char] = obs
            self._emit("follow", cache[char], spectator.sid)

    def _send_observations(self) -> None:
        for seat in list(self.seats.values()):
            if not seat.sids:
                continue
            obs = self._observe(seat.char, full_memory=seat.full_memory_due)
            if obs is None:
                continue
            seat.full_memory_due = False
            for sid in list(seat.sids):
                if self._backlog(sid) <= HIGH_WATER:
                    self._emit("observation", obs, sid)

    # --- helpers ----------------------------------------------------------------------------

    def _observe(self, char: int, full_memory: bool = False, consume: bool = True) -> dict | None:
        """The character's scoped observation; spectators pass consume=False so following an
        agent's character never takes the events out of that agent's own next observation."""
        world = self.runner.world
        try:
            obs = world.observe(char, full_memory=full_memory, consume=consume)
        except Exception:  # the engine refuses unknown characters (Refusal): no observation
            return None
        if full_memory and isinstance(obs.get("memory"), dict):
            # memory.ticks (when each tile was last seen) is ~4x the size of memory.tiles and the
            # page draws fog from the tiles alone; leave it out of every browser message.
            obs["memory"] = {k: v for k, v in obs["memory"].items() if k != "ticks"}
        return obs

    def _emit(self, event: str, data: Any, sid: str) -> None:
        self.server.emit(event, data, to=sid, namespace=NAMESPACE)

    def _backlog(self, sid: str) -> int:
        """Packets waiting in this client's Engine.IO send queue (0 for test clients)."""
        server = self.server
        try:
            eio_sid = server.manager.eio_sid_from_sid(sid, NAMESPACE)
            sock = server.eio.sockets.get(eio_sid)
        except (AttributeError, KeyError):
            return 0
        if sock is None:
            return 0
        return sock.queue.qsize()


# -- seats kept and revoked -----------------------------------------------------------------
def restore_player_seat(app: Flask, token: str) -> Any:
    """After a restart, a browser player's token (known only by its hash on disk) gets its seat
    back in the live rooms. Returns the Seat or None."""
    store = app.extensions.get(STORE)
    if store is None:
        return None
    row = store.player_for(token)
    if row is None:
        return None
    live = app.extensions[SERVICES].live
    seat = Seat(token=token, char=row["char"], name=row["name"])
    live.runner.call(lambda: live.seats.setdefault(token, seat))
    return live.seats.get(token)


def kick(app: Flask, char: int) -> dict:
    """Revoke every token of a character and disconnect its connections. The character stays
    in the world (the engine has no removal); nobody can act for it any more."""
    live = app.extensions[SERVICES].live
    service = app.extensions.get(AGENTS)
    sids: list[tuple[str, str]] = []

    def revoke() -> int:
        count = 0
        for token, seat in list(live.seats.items()):
            if seat.char == char:
                count += 1
                sids.extend((sid, "/") for sid in seat.sids)
                del live.seats[token]
                for sid in seat.sids:
                    live.seat_of_sid.pop(sid, None)
        if service is not None:
            seat = service.seats.pop(char, None)
            if seat is not None:
                count += 1
                service.by_token.pop(seat.token_hash, None)
                sids.extend((sid, "/agent") for sid, c in service.sid_char.items() if c == char)
            for record in service.programs.programs_of(char):
                service.programs.cancel(char, record.id)  # a no-op for ended ones
        return count

    count = live.runner.call(revoke)
    store = app.extensions.get(STORE)
    if store is not None:
        store.revoke(char)
    for sid, namespace in sids:
        try:
            socketio.server.disconnect(sid, namespace=namespace)
        except Exception:  # already gone
            pass
    return {"char": char, "tokens_revoked": count, "disconnected": len(sids)}
