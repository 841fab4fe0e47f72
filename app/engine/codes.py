"""Every error code a person may meet, in one table: what it means, where it comes from and,
for an error the HTTP API answers, its status.

A code is a stable snake_case word (`bad_seeds`, `inventory_full`); its sentence says the
particulars. Code that raises or prints one names it from here (`codes.BAD_SEEDS`), so a code
that is not in this table cannot be raised, and tests/test_error_codes.py checks that every code
in app/ is here and every code here is raised somewhere. docs/errors.md is written from this
table (`python -m asiworld.errors_doc docs/errors.md`).

Each name is the code itself, so `codes.BAD_SEEDS == "bad_seeds"`: a code crosses every boundary
(JSON, a printed line, a replay) as the plain word.

Plain data and the standard library only: the engine imports nothing outside itself, and a
command's error path must not load the world.
"""

from __future__ import annotations

from dataclasses import dataclass

# Where a code comes from: the surfaces people meet it on.
ACTION = "action"  # a world's refusal of an action: nothing changed (any surface that acts)
API = "api"  # the HTTP API's JSON answer {"ok": false, "code", "message", "error": {...}}
SOCKET = "socket"  # a Socket.IO event's answer, the same body plus `event`
CLI = "cli"  # a command's one line `error: code: sentence` on stderr, exit status 2
STUDY = "study"  # a study file or a study run (`asiworld study ...`)
REPLAY = "replay"  # a replay file, its viewer and `asiworld replay ...`
PROGRAM = "program"  # a hosted program's refusal or the end it came to
EVALUATION = "evaluation"  # `asiworld evaluate` reports and their run folders
LOCAL_MODEL = "local model"  # `asiworld model serve` and the local-model seats
CLIENT = "client"  # the Python SDK, the agent interface, MCP and the environments

SURFACES = (ACTION, API, SOCKET, CLI, STUDY, REPLAY, PROGRAM, EVALUATION, LOCAL_MODEL, CLIENT)


@dataclass(frozen=True)
class Code:
    code: str
    meaning: str  # one line for people: what went wrong, not the particulars
    where: tuple[str, ...]  # the surfaces that raise it (SURFACES)
    status: int | None = None  # the HTTP status the API answers it with; None: not an API error


TABLE: dict[str, Code] = {}


def _code(code: str, meaning: str, *where: str, status: int | None = None) -> str:
    TABLE[code] = Code(code, meaning, where, status)
    return code


def status(code: str) -> int | None:
    """The HTTP status the API answers `code` with (None: the table gives none)."""
    found = TABLE.get(code)
    return found.status if found else None


# A world's refusals: the action was not done and nothing changed. No HTTP status: the agent API
# answers them as an ActionResult {ok: false, code, message}, not as an error.
ALREADY_OFFERED = _code("already_offered", "the altar is already open: enter the Sanctum", ACTION)
ASLEEP = _code("asleep", "the character is asleep; wake first", ACTION)
BAD_TEXT = _code("bad_text", "text that is not valid UTF-8 (a lone surrogate)", ACTION, PROGRAM,
                 API, status=422)
BLOCKED = _code("blocked", "the tile is blocked", ACTION)
CANNOT_PLACE_HERE = _code("cannot_place_here", "that cannot be built on this tile", ACTION)
CHARACTER_DOWN = _code("character_down", "the character is knocked down for a while", ACTION)
COOLDOWN = _code("cooldown", "the character cannot attack again yet", ACTION)
EXIT_CLOSED = _code("exit_closed", "the exit portal opens only once the boss has fallen", ACTION)
INVENTORY_FULL = _code("inventory_full", "no room in the inventory for it", ACTION)
MISSING_MATERIALS = _code("missing_materials", "not carrying what building it needs", ACTION)
NEEDS_DESIGN = _code("needs_design", "crafting this needs its design in the inventory", ACTION)
NEEDS_STATION = _code("needs_station", "crafting this needs its station within reach", ACTION)
NEEDS_LOCK = _code("needs_lock", "the door has no lock yet", ACTION)
NEEDS_SIGIL = _code("needs_sigil", "the gate lets in only those who carry its sigil", ACTION)
NEEDS_TOOL = _code("needs_tool", "gathering this needs a tool", ACTION)
NO_BED = _code("no_bed", "sleeping needs a bed of one's own next to one", ACTION)
NO_PATH = _code("no_path", "there is no way to that tile", ACTION)
NO_TARGET = _code("no_target", "there is nothing to act on there", ACTION, CLIENT)
NOT_A_DOOR = _code("not_a_door", "the structure is not a door", ACTION)
NOT_ADJACENT = _code("not_adjacent", "the target is not next to the character", ACTION)
NOT_AT_ALTAR = _code("not_at_altar", "offering needs the character next to the altar", ACTION)
NOT_AT_EXIT = _code("not_at_exit", "leaving needs the character on the entrance or exit portal",
                    ACTION)
NOT_AT_MERCHANT = _code("not_at_merchant", "buying needs the character next to the merchant",
                        ACTION)
NOT_EDIBLE = _code("not_edible", "the item cannot be eaten or used", ACTION)
NOT_ENOUGH_COINS = _code("not_enough_coins", "not enough T-coins for it", ACTION)
NOT_EQUIPPABLE = _code("not_equippable", "the item cannot be equipped", ACTION)
NOT_IN_DUNGEON = _code("not_in_dungeon", "the character is not inside a dungeon", ACTION)
NOT_IN_INVENTORY = _code("not_in_inventory", "the character does not carry it", ACTION)
NOT_ON_GATE = _code("not_on_gate", "entering needs the character on a dungeon gate", ACTION)
NOT_OWNER = _code("not_owner", "the structure belongs to someone else", ACTION)
NOT_SOLD = _code("not_sold", "the merchant does not sell it", ACTION)
NOTHING_TO_GATHER = _code("nothing_to_gather", "there is nothing to gather there", ACTION)
OUT_OF_BOUNDS = _code("out_of_bounds", "the tile is outside the map", ACTION)
PEACEFUL = _code("peaceful", "characters cannot attack each other in this world", ACTION)
SLOT_EMPTY = _code("slot_empty", "nothing is equipped in that slot", ACTION)
UNKNOWN_ACTION = _code("unknown_action", "no action has that name", ACTION, API, status=422)
UNKNOWN_ITEM = _code("unknown_item", "no item has that name", ACTION)
UNKNOWN_RECIPE = _code("unknown_recipe", "no recipe makes that", ACTION)

# Requests: an argument, a token, a body.
BAD_ARGUMENT = _code(
    "bad_argument",
    "an argument is missing or not a value it takes (the agent API answers 422)",
    ACTION, API, SOCKET, CLI, REPLAY, PROGRAM, CLIENT, status=400)
UNKNOWN_CHARACTER = _code("unknown_character", "no character has that id here", ACTION, API,
                          SOCKET, REPLAY, PROGRAM, status=404)
BAD_ACTION = _code("bad_action", "the action is not an object with a `type` the engine reads",
                   API, SOCKET, CLIENT, status=422)
BAD_CAUSE = _code("bad_cause", "an incident's `cause` is not a snake_case word", API, status=422)
BAD_DETAIL = _code("bad_detail", "an incident's `detail` is not short text", API, status=422)
BAD_END = _code("bad_end", "an incident's `end` is not a tick at or after its `start`", API,
                status=422)
BAD_START = _code("bad_start", "an incident's `start` is not a tick", API, status=422)
BAD_FORMAT = _code("bad_format", "an observation's format is not 'json' or 'text'", API,
                   status=422)
BAD_JOIN_TOKEN = _code("bad_join_token", "the join token is not a token's shape", API,
                       status=422)
BAD_JSON = _code("bad_json", "the body is not a JSON object", API, CLIENT, status=400)
BAD_LABEL = _code("bad_label", "a configuration label is not 1-32 letters, digits or . _ -",
                  API, status=422)
BAD_NAME = _code("bad_name", "a name is not 1-24 letters, digits, spaces, - or _", API, SOCKET,
                 status=422)
BAD_PROGRAM = _code("bad_program", "a program needs a `name` and a `source` (text)", API,
                    status=422)
BAD_REQUEST = _code("bad_request", "the event's payload is not one JSON object", API, SOCKET,
                    status=422)
BAD_SPECTATOR_TOKEN = _code("bad_spectator_token", "the spectator token is not a token's shape",
                            API, status=422)
BAD_TOKEN = _code("bad_token", "no player token, or not a token's shape", API, SOCKET,
                  status=422)
METHOD_NOT_ALLOWED = _code("method_not_allowed", "this address does not take that method", API,
                           status=405)
MISSING_TOKEN = _code("missing_token", "the agent token was not sent (Authorization: Bearer)",
                      API, status=401)
NO_SCHEMA = _code("no_schema", "this address or event takes no body", API, SOCKET, status=400)
NOT_FOUND = _code("not_found", "nothing is at this address, or no replay file at that path",
                  API, REPLAY, status=404)
RATE_LIMITED = _code("rate_limited", "too many messages a second: retry a moment later", API,
                     SOCKET, status=429)
TOO_DEEP = _code("too_deep", "a message or a program's value nests too deep", API, SOCKET,
                 PROGRAM, status=400)
TOO_LARGE = _code("too_large", "a body, message or program value is over its size limit", API,
                  SOCKET, PROGRAM, status=413)
UNKNOWN_ARGUMENT = _code("unknown_argument", "the message has a key it does not take", API,
                         SOCKET, status=422)

# Seats and the world.
JOIN_CLOSED = _code("join_closed", "the world is closed: joining needs its join token", API,
                    SOCKET, status=403)
NAME_RESERVED = _code("name_reserved", "the name is a built-in agent's", API, SOCKET,
                      status=409)
NAME_TAKEN = _code("name_taken", "someone in the world already has the name", API, SOCKET,
                   status=409)
NOT_ADMIN = _code("not_admin", "the admin controls need the admin token (or loopback)", API,
                  status=403)
NOT_SPECTATOR = _code("not_spectator", "this needs the spectator token", API, SOCKET, REPLAY,
                      status=403)
NOT_YOUR_CHARACTER = _code("not_your_character", "the token acts for another character", API,
                           status=403)
UNKNOWN_TOKEN = _code("unknown_token", "the token is not one this server gave: join first", API,
                      SOCKET, status=401)
WORLD_FULL = _code("world_full", "the world holds its most characters, or has no free tile",
                   ACTION, API, SOCKET, status=409)
NOT_SAVED = _code("not_saved", "done in memory but not saved (a full disk): not acknowledged",
                  API, status=503)
WORLD_STOPPED = _code("world_stopped", "the world's clock has stopped: nothing was done", API,
                      status=503)
TOO_MANY_CONNECTIONS = _code("too_many_connections", "the server holds its most connections",
                             API, status=503)
FRONTEND_ONLY = _code("frontend_only", "a front end holds no world: ask the world's server",
                      API, SOCKET, status=404)
NO_DATA_DIR = _code("no_data_dir", "the server keeps nothing on disk (no --data-dir)", API,
                    status=409)
NOT_STARTED = _code("not_started", "the study's world has not started yet", API, STUDY,
                    status=503)
QUEUE_UNAVAILABLE = _code("queue_unavailable", "no Redis server answers at the message queue",
                          API, CLI)
BAD_MESSAGE_QUEUE = _code("bad_message_queue", "--message-queue is not a Redis URL", CLI)
REDIS_UNAVAILABLE = _code("redis_unavailable", "the message queue needs the redis package", CLI)
DATA_IN_USE = _code("data_in_use", "another server already uses this data folder", CLI)

# Hosted programs.
PROGRAMS_UNAVAILABLE = _code("programs_unavailable", "this world hosts no programs", API, STUDY,
                             PROGRAM, status=409)
UNKNOWN_PROGRAM = _code("unknown_program", "the character has no program with that id", API,
                        STUDY, PROGRAM, status=404)
NOT_RUNNING = _code("not_running", "the program has already ended", PROGRAM, API, status=409)
SYNTAX_ERROR = _code("syntax_error", "the program cannot be compiled", PROGRAM, API, status=422)
FORBIDDEN = _code("forbidden", "the program uses something programs may not", PROGRAM, API,
                  status=422)
TOO_LONG = _code("too_long", "the program's source is over its length limit", PROGRAM, API,
                 status=422)
PROGRAM_ERROR = _code("program_error", "the program raised an error and ended", PROGRAM)
CPU_TIME_EXCEEDED = _code("cpu_time_exceeded", "the program used too much CPU time", PROGRAM)
STEP_BUDGET_EXHAUSTED = _code("step_budget_exhausted", "the program used its total step budget",
                              PROGRAM)
OUT_OF_MEMORY = _code("out_of_memory", "the program held more memory than it may", PROGRAM)
CANCELLED = _code("cancelled", "the program was cancelled on request", PROGRAM)
REPLACED = _code("replaced", "another program took the character's place", PROGRAM)
DIRECT_ACTION = _code("direct_action", "a direct action for the character stopped the program",
                      PROGRAM)
INTERRUPTED = _code("interrupted", "the server restarted while the program ran", PROGRAM)
HOST_CRASHED = _code("host_crashed", "the program's host process died", PROGRAM)
HOST_UNAVAILABLE = _code("host_unavailable", "no program host could be started", PROGRAM)
UNKNOWN_REQUEST = _code("unknown_request", "the program host was sent an op it does not know",
                        PROGRAM)

# Commands: their arguments and files.
BAD_ENCODING = _code("bad_encoding", "the file is not UTF-8 text", CLI)
BAD_FAULT = _code("bad_fault", "a --fault the stand-in model does not know", CLI)
BAD_OUT = _code("bad_out", "--out names a file, not a folder", CLI, STUDY)
BAD_PORT = _code("bad_port", "a port is not 1..65535", CLI)
BAD_ENVIRONMENT = _code("bad_environment", "an ASIWORLD_* variable has a value its setting "
                        "does not take", CLI)
BAD_MAX_CHARACTERS = _code("bad_max_characters", "--max-characters is not a whole number of at "
                           "least 1", CLI)
BAD_GRACE_NIGHTS = _code("bad_grace_nights", "--grace-nights is not a whole number of at least "
                         "0", CLI)
BAD_MAX_CONNECTIONS = _code("bad_max_connections", "--max-connections is not a whole number of "
                            "at least 1", CLI)
BAD_PROGRAM_MEMORY = _code("bad_program_memory", "--program-memory is below the least a host "
                           "needs", CLI)
BAD_PROGRAMS_KEPT = _code("bad_programs_kept", "--programs-kept is not a whole number of at "
                          "least 1", CLI)
BAD_PROGRAMS_MEMORY = _code("bad_programs_memory", "--programs-memory is not a whole number of "
                            "at least 1", CLI)
BAD_SEEDS = _code("bad_seeds", "--seeds is not seeds like 1..4 or 3,5,8", CLI)
BAD_TRANSCRIPT = _code("bad_transcript", "the file is not a study transcript", CLI)
BAD_URL = _code("bad_url", "a URL is not http(s)://HOST:PORT", CLI)
CANNOT_WRITE = _code("cannot_write", "the output file cannot be written", CLI)
ENGINE_MISSING = _code("engine_missing", "the engine cannot be imported here", CLI)
ADMIN_TOKEN_REQUIRED = _code("admin_token_required", "a served app needs ASIWORLD_ADMIN_TOKEN",
                             CLI)
FILE_EXISTS = _code("file_exists", "the output file exists (--force replaces it)", CLI)
FILE_NOT_FOUND = _code("file_not_found", "no file at that path", CLI)
FOLDER_MISSING = _code("folder_missing", "no study folder at that path", CLI)
FOLDER_NOT_FOUND = _code("folder_not_found", "no folder at that path", CLI)
MAIN_IN_A_WORKER = _code("main_in_a_worker", "a worker process ran the calling script again: "
                         'its work belongs under `if __name__ == "__main__":`', CLI, STUDY)
MISSING_DEPENDENCY = _code("missing_dependency", "the command needs a package not installed",
                           CLI)
NOT_A_FILE = _code("not_a_file", "the path names a folder, not a file", CLI)
NOT_A_FOLDER = _code("not_a_folder", "the path names a file, not a folder", CLI)
NOT_WRITABLE = _code("not_writable", "the path cannot be written", CLI)
OUT_IN_USE = _code("out_in_use", "--out holds an earlier study (--force replaces it)", CLI,
                   STUDY)
PORT_UNAVAILABLE = _code("port_unavailable", "the port is in use or the address not this "
                         "machine's", CLI, STUDY, LOCAL_MODEL)
RAY_UNAVAILABLE = _code("ray_unavailable", "--ray needs the ray package", CLI, STUDY)
REQUEST_MISSING = _code("request_missing", "the transcript holds no such request", CLI)
STUDIES_UNAVAILABLE = _code("studies_unavailable", "this command table has no studies", CLI)
UNKNOWN_CALL = _code("unknown_call", "the transcript holds no such call", CLI)
UNKNOWN_CONFIGURATION = _code("unknown_configuration", "no agent configuration has that name",
                              CLI, STUDY)
UNKNOWN_SAMPLE = _code("unknown_sample", "no sample has that name", CLI)
UNREADABLE = _code("unreadable", "the file cannot be read (permissions)", CLI)
WORLD_EXISTS = _code("world_exists", "the data folder's saved world has other built-in agents",
                     CLI)

# Study files and study runs.
AGENT_NOT_FOUND = _code("agent_not_found", "the agent class named cannot be imported", STUDY,
                        CLIENT)
BAD_TOML = _code("bad_toml", "the study file is not valid TOML", STUDY)
BAD_VALUE = _code("bad_value", "a study file's value is not one the key takes", STUDY)
MISSING_KEY = _code("missing_key", "a study file lacks a key it needs", STUDY)
UNKNOWN_KEY = _code("unknown_key", "a study file has a key it does not take", STUDY)
UNKNOWN_KIND = _code("unknown_kind", "a study file names a `kind` that does not exist", STUDY)
WRONG_TYPE = _code("wrong_type", "a study file's value has the wrong type (text, number, ...)",
                   STUDY)
DUPLICATE_NAME = _code("duplicate_name", "two configurations have the same name", STUDY,
                       EVALUATION)
EXTERNAL_ABSENT = _code("external_absent", "an external seat made no call in time", STUDY)
STUDY_ENDED = _code("study_ended", "the study reached its horizon: its world plays no more",
                    API, SOCKET, CLIENT, status=410)
NOT_YOUR_TURN = _code("not_your_turn", "on the lockstep clock a seat decides once in its open "
                      "turn", API, SOCKET, CLIENT, status=409)
NO_TURNS = _code("no_turns", "this world's clock takes no turns: act at any time", API, CLIENT,
                 status=409)
HUMAN_SEAT_OPTION = _code("human_seat_option", "a human seat takes only a name, a label and its "
                          "turn_seconds: a person plays it from /play", STUDY)
WRONG_SEAT = _code("wrong_seat", "the seat link's token is another seat's: open the link the "
                   "study printed for this seat", API, status=403)
TURN_STEPPED = _code("turn_stepped", "this world is stepped turn by turn by its lockstep study: "
                     "it is not paused, resumed or stepped by hand", API, status=409)
MODEL_UNREACHABLE = _code("model_unreachable", "the model has not answered for too long", STUDY,
                          CLIENT)
RAY_UNREACHABLE = _code("ray_unreachable", "Ray cannot be started or reached", STUDY)
RESUME_DIVERGED = _code("resume_diverged", "the resumed study played differently than before",
                        STUDY)
RESUME_MISMATCH = _code("resume_mismatch", "the folder holds a study of another file or seed",
                        STUDY)
RESUME_UNREADABLE = _code("resume_unreadable", "the interrupted study's files cannot be read",
                          STUDY)
SEVERAL_SEEDS = _code("several_seeds", "the live server runs a study of one seed only", STUDY)
STUDY_MISSING = _code("study_missing", "no study file at that path", STUDY)
TEMPLATE_MISSING = _code("template_missing", "the prompt or chat template file is missing",
                         STUDY, LOCAL_MODEL)
UNREADABLE_STUDY = _code("unreadable_study", "the study file cannot be read", STUDY)
UNREADABLE_TEMPLATE = _code("unreadable_template", "the prompt template cannot be read", STUDY)

# Replays and snapshots.
BAD_FOOTER = _code("bad_footer", "the replay's footer is damaged", REPLAY)
BAD_HEADER = _code("bad_header", "the replay's header is damaged", REPLAY)
BAD_SNAPSHOT = _code("bad_snapshot", "a world snapshot cannot be restored", REPLAY)
CLIP_TOO_LONG = _code("clip_too_long", "the GIF would have too many frames", REPLAY, CLI)
CORRUPT_CHUNK = _code("corrupt_chunk", "a chunk of the replay is damaged", REPLAY)
CORRUPT_INDEX = _code("corrupt_index", "the replay's index is damaged", REPLAY)
DAMAGED_REPLAY = _code("damaged_replay", "the replay holds data this reader cannot use", REPLAY,
                       API, CLI, status=422)
HASH_MISMATCH = _code("hash_mismatch", "re-running the replay gave another state hash", REPLAY)
LOG_MISMATCH = _code("log_mismatch", "the replay's action log cannot be re-run", REPLAY)
NO_HASHES = _code("no_hashes", "the replay holds no state hashes to verify", REPLAY)
NO_HEADER = _code("no_header", "the file ends before its header", REPLAY)
NO_KEYFRAME = _code("no_keyframe", "no keyframe at or before that tick", REPLAY, API, status=404)
NO_START_SNAPSHOT = _code("no_start_snapshot", "the replay begins mid-run without a snapshot",
                          REPLAY)
NOT_A_REPLAY = _code("not_a_replay", "the file is not a replay", REPLAY)
NOT_RECORDABLE = _code("not_recordable", "the world cannot be recorded at this moment", REPLAY)
RECORDER_CLOSED = _code("recorder_closed", "the replay was already closed", REPLAY)
RESIM_MISMATCH = _code("resim_mismatch", "re-running the replay gave another world", REPLAY)
SNAPSHOT_PICKLED = _code("snapshot_pickled", "an old pickled snapshot: not read (it could run "
                         "code)", REPLAY)
SNAPSHOT_VERSION = _code("snapshot_version", "the snapshot's schema is one this engine does "
                         "not read", REPLAY)
TICK_OUT_OF_ORDER = _code("tick_out_of_order", "a frame's tick does not follow the last", REPLAY)
TICK_OUT_OF_RANGE = _code("tick_out_of_range", "the tick is outside the recorded ticks", REPLAY,
                          API, status=404)
UNKNOWN_AREA = _code("unknown_area", "the area is not in the world at that tick", REPLAY, CLI)
UNKNOWN_CHUNK = _code("unknown_chunk", "the replay has no such frame chunk", REPLAY, API,
                      status=404)
UNKNOWN_REPLAY = _code("unknown_replay", "no replay has that id", REPLAY, API, status=404)
UNKNOWN_SCHEMA = _code("unknown_schema", "the replay's schema is not a known version", REPLAY)
UNKNOWN_TURN = _code("unknown_turn", "the character has no model turn with that number", REPLAY)
UNSUPPORTED_SCHEMA = _code("unsupported_schema", "the replay is newer than this build reads",
                           REPLAY)

# Evaluation reports.
BAD_EVENTS_LINE = _code("bad_events_line", "a line of a run's events is not an event",
                        EVALUATION)
BAD_RESULTS_JSON = _code("bad_results_json", "a run's results.json cannot be read", EVALUATION,
                         API, status=500)
BAD_RUN_NAME = _code("bad_run_name", "not a run name", API, status=400)
EVENTS_MISSING = _code("events_missing", "a run has no event file", EVALUATION)
MIXED_RUNS = _code("mixed_runs", "the runs differ in horizon, content or clock: not repeats of "
                   "one setting", EVALUATION)
NO_RUNS = _code("no_runs", "no run to compare", EVALUATION)
NO_RUNS_FOLDER = _code("no_runs_folder", "the server has no runs folder", API, status=404)
RUN_DIR_MISSING = _code("run_dir_missing", "the run folder named is not a folder", EVALUATION)
BAD_RESULTS = _code("bad_results", "a results file is not JSON or fails the results schema",
                    EVALUATION)
DUPLICATE_STUDY = _code("duplicate_study", "the same folder was given twice", EVALUATION)
MIXED_STUDIES = _code("mixed_studies", "the studies differ in content or horizon: not one "
                      "leaderboard", EVALUATION)
RESULTS_MISSING = _code("results_missing", "the folder holds no results.json or comparison.json",
                        EVALUATION)
RUN_NOT_FOUND = _code("run_not_found", "no run of that name", API, status=404)
UNKNOWN_REFERENCE = _code("unknown_reference", "the reference is not a configuration of the "
                          "runs", EVALUATION)

# A table of measures (`asiworld evaluate score`): a CSV with a header and a row a configuration.
BAD_BOOLEAN = _code("bad_boolean", "a yes/no cell is not Y/N, 1/0 or true/false", EVALUATION)
BAD_NUMBER = _code("bad_number", "a count cell is not a whole number", EVALUATION)
EMPTY_FILE = _code("empty_file", "the table is empty", EVALUATION)
EMPTY_NAME = _code("empty_name", "a row has no configuration name", EVALUATION)
MISSING_COLUMN = _code("missing_column", "the header lacks a column", EVALUATION)
NEGATIVE_NUMBER = _code("negative_number", "a count cell is negative", EVALUATION)
NO_ROWS = _code("no_rows", "the table has a header but no rows", EVALUATION)
OUT_OF_RANGE = _code("out_of_range", "a count cell is above its maximum", EVALUATION)
SHORT_ROW = _code("short_row", "a row has fewer cells than the header", EVALUATION)

# A local model.
BAD_MODEL_FILE = _code("bad_model_file", "--model is not a GGUF file", LOCAL_MODEL)
LOCAL_MODEL_UNAVAILABLE = _code("local_model_unavailable", "serving a local model needs "
                                "xllamacpp", LOCAL_MODEL)
MODEL_MISSING = _code("model_missing", "the model package holds no model file", LOCAL_MODEL)
SERVER_FAILED = _code("server_failed", "llama.cpp could not start the model", LOCAL_MODEL)

# Agents' own side: the SDK, the agent interface, MCP, the environments.
# The built-in configurations' parameter sets (content/configurations.toml, read by the bots).
BAD_GOALS = _code("bad_goals", "a parameter set's goals are not a list of goal names", CLIENT)
BAD_PARAMETER = _code("bad_parameter", "a parameter set has a bad value or an unknown key",
                      CLIENT)
NO_GOALS = _code("no_goals", "a parameter set's goals list is empty", CLIENT)
REPEATED_GOAL = _code("repeated_goal", "a parameter set names a goal twice", CLIENT)
UNKNOWN_GOAL = _code("unknown_goal", "a parameter set names a goal the strategy does not have",
                     CLIENT)
BAD_PARAMS = _code("bad_params", "an agent class refused its parameters", CLIENT)
NOT_AN_AGENT = _code("not_an_agent", "the class named is not an agent", CLIENT)
NOT_JOINED = _code("not_joined", "the client has not joined yet", CLIENT)
HTTP_ERROR = _code("http_error", "the server answered an error without a code (not JSON)", CLIENT)
SERVER_UNREACHABLE = _code("server_unreachable", "the server did not answer", CLIENT)
UNKNOWN_PLACEHOLDER = _code("unknown_placeholder", "a prompt template names an unknown "
                            "placeholder", CLIENT)
UNKNOWN_TOOL = _code("unknown_tool", "the model called a tool that is not offered", CLIENT)
