// `frota demo [--out DIR] [--vehicles N] [--seed S] [--date YYYY-MM-DD]`: the main job on a
// fresh machine. Simulates a compact city day, replays it into the embedded DuckDB, proves
// it with the batch recomputation, computes headways, scores it all (headways included)
// against the ground truth and writes the dashboard; then prints where everything is, a
// few headline numbers and the departure and headway score.
//
// Each step is this same binary run as a child process with the flags a user would type,
// so the demo shows (in DIR/steps/) exactly the commands to run by hand next.
#include <fcntl.h>
#include <fmt/core.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "frota/base/file.h"
#include "frota/cli/commands.h"
#include "frota/sink/duckdb_connection.h"

extern char** environ;

namespace frota::cli {

namespace {

namespace fs = std::filesystem;

// Written into a demo folder so that a later demo may replace it, and nothing else.
constexpr const char* kMarker = ".frota-demo";

struct DemoFlags {
  std::string out = "frota-demo";
  std::int32_t vehicles = 150;
  std::uint64_t seed = 1;
  std::string date = "2024-06-05";  // a Wednesday: weekday service
};

// The path of the running binary, to run the steps with.
base::Result<fs::path> SelfPath() {
  std::error_code ec;
  auto self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) {
    return base::Internal("cannot find the frota binary (/proc/self/exe): {}", ec.message());
  }
  return self;
}

std::string ShellQuote(const std::string& arg) {
  if (arg.find_first_of(" '\"\\$`*?&;|<>()") == std::string::npos) {
    return arg;
  }
  std::string out = "'";
  for (const char c : arg) {
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  }
  return out + "'";
}

// One step: `frota ARGS...` with stdout and stderr into `log`. Returns the exit code.
base::Result<int> RunStep(const fs::path& self, const std::vector<std::string>& args,
                          const fs::path& log) {
  std::vector<std::string> argv_text = {self.string()};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_text) {
    argv.push_back(a.data());
  }
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  const std::string log_path = log.string();
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    return base::Internal("cannot start {}: {}", self.string(), std::strerror(rc));
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      return base::Internal("waiting for {}: {}", self.string(), std::strerror(errno));
    }
  }
  if (WIFSIGNALED(status)) {
    return 128 + WTERMSIG(status);
  }
  return WEXITSTATUS(status);
}

// The folder to write into: created, or a previous demo's folder emptied. Anything else
// that is not empty is left alone: the demo never deletes a user's files.
base::Status PrepareOut(const fs::path& out) {
  std::error_code ec;
  if (fs::exists(out, ec)) {
    if (!fs::is_directory(out, ec)) {
      return base::InvalidInput("--out {}: exists and is not a folder", out.string());
    }
    if (!fs::is_empty(out, ec)) {
      if (!fs::exists(out / kMarker, ec)) {
        return base::InvalidInput(
            "--out {}: folder is not empty and was not written by frota demo; choose another",
            out.string());
      }
      fs::remove_all(out, ec);
      if (ec) {
        return base::Internal("cannot clear the previous demo in {}: {}", out.string(),
                              ec.message());
      }
    }
  }
  fs::create_directories(out / "steps", ec);
  if (ec) {
    return base::Internal("cannot create {}: {}", out.string(), ec.message());
  }
  return base::WriteFileAtomic(out / kMarker,
                               "written by frota demo; it may replace this folder\n");
}

// Headline numbers, straight from the views every dashboard and export reads.
base::Status PrintHeadlines(const fs::path& db_path) {
  FROTA_ASSIGN_OR_RETURN(auto db, sink::DuckDbConnection::Open(db_path, /*read_only=*/true));
  FROTA_ASSIGN_OR_RETURN(
      auto counts,
      db->Query("SELECT (SELECT count(*) FROM positions), (SELECT count(*) FROM rejected), "
                "(SELECT count(DISTINCT vehicle_id) FROM positions), "
                "(SELECT count(*) FROM duplicate_slots)"));
  fmt::print("  positions accepted      {:>10}  from {} vehicles\n", counts.Int64(0, 0),
             counts.Int64(0, 2));
  fmt::print("  positions rejected      {:>10}  (every one kept with its reason)\n",
             counts.Int64(0, 1));
  FROTA_ASSIGN_OR_RETURN(
      auto reasons,
      db->Query(
          "SELECT reason, count(*) AS n FROM rejected GROUP BY reason ORDER BY n DESC, reason "
          "LIMIT 4"));
  for (std::size_t r = 0; r < reasons.rows(); ++r) {
    fmt::print("    {:<22}{:>10}\n", reasons.String(r, 0), reasons.Int64(r, 1));
  }
  // Means over every segment, dwell at stops and layovers included (semantics §4, speed).
  FROTA_ASSIGN_OR_RETURN(
      auto speeds,
      db->Query("SELECT hour, 3600 * sum(distance_mm)::DOUBLE / sum(duration_us) AS kmh "
                "FROM speed_cells WHERE hour IN (3, 8, 12, 18) GROUP BY hour "
                "HAVING sum(duration_us) > 0 ORDER BY hour"));
  if (speeds.rows() > 0) {
    fmt::print("  mean speed by hour     ");
    for (std::size_t r = 0; r < speeds.rows(); ++r) {
      fmt::print(" {:02}h {:.1f} km/h", speeds.Int64(r, 0), speeds.Double(r, 1));
    }
    fmt::print("  (stops and layovers included)\n");
  }
  FROTA_ASSIGN_OR_RETURN(auto stops,
                         db->Query("SELECT count(*), coalesce(max(duration_s), 0) FROM stop_rows "
                                   "WHERE place = 'en_route' AND duration_s >= 600"));
  fmt::print(
      "  stops >= 10 min on the way (not at terminals, not at depots) {:>4}  (longest "
      "{:.0f} min)\n",
      stops.Int64(0, 0), stops.Double(0, 1) / 60.0);
  fmt::print("  schedule slots with two or more vehicles {}\n", counts.Int64(0, 3));
  FROTA_ASSIGN_OR_RETURN(auto latency,
                         db->Query("SELECT round(median(latency_p50_s), 0) FROM quality_hours"));
  if (!latency.IsNull(0, 0)) {
    fmt::print("  feed latency            {:>7.0f} s  (median of the hourly medians)\n",
               latency.Double(0, 0));
  }
  return base::Status::Ok();
}

struct Step {
  std::string name;
  std::vector<std::string> args;
  std::string what;
};

int RunDemo(const DemoFlags& flags) {
  if (flags.vehicles < 10) {
    return ReportError(base::InvalidInput("--vehicles {}: at least 10", flags.vehicles));
  }
  const auto self = SelfPath();
  if (!self.ok()) {
    return ReportError(self.error());
  }
  const fs::path out = flags.out;
  if (auto status = PrepareOut(out); !status.ok()) {
    return ReportError(status.error());
  }
  const std::string sim = (out / "sim").string();
  const std::string archive = "archive:" + sim;
  const std::string gtfs = (out / "sim" / "gtfs").string();
  const std::string area = (out / "sim" / "area.geojson").string();
  const std::string db = (out / "frota.duckdb").string();
  const std::string report = (out / "replay-report.json").string();
  const std::string html = (out / "dashboard.html").string();
  const std::vector<Step> steps = {
      {"simulate",
       {"simulate", "--date", flags.date, "--vehicles", std::to_string(flags.vehicles), "--seed",
        std::to_string(flags.seed), "--out", sim},
       "a compact city day of GTFS-RT responses, with the Rio feeds' faults and its truth"},
      {"replay",
       {"replay", archive, "--gtfs", gtfs, "--area", area, "--db", db, "--report", report},
       "every job, exactly once, into the embedded DuckDB"},
      {"reconcile",
       {"reconcile", archive, "--db", db, "--gtfs", gtfs, "--area", area},
       "the batch recomputation, compared with the stream row by row"},
      {"headways",
       {"headways", "--db", db, "--gtfs", gtfs},
       "departures and headways per route, direction and hour against the plan"},
      // After headways: the score includes the departures and headways it found.
      {"evaluate",
       {"evaluate", "--db", db, "--truth", (out / "sim" / "truth.json").string()},
       "the results scored against the simulator's ground truth"},
      {"dashboard",
       {"dashboard", "--db", db, "--gtfs", gtfs, "--area", area, "--out", html, "--report", report},
       "one self-contained HTML page"},
  };

  fmt::print("frota demo: writing into {}\n\n", out.string());
  const auto started = std::chrono::steady_clock::now();
  for (const auto& step : steps) {
    const fs::path log = out / "steps" / (step.name + ".txt");
    std::string command = "frota";
    for (const auto& a : step.args) {
      command += " " + ShellQuote(a);
    }
    std::fflush(stdout);
    const auto t0 = std::chrono::steady_clock::now();
    const auto rc = RunStep(*self, step.args, log);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!rc.ok()) {
      return ReportError(rc.error());
    }
    const bool ok = *rc == kExitOk;
    fmt::print("  {:<10} {:>6.1f} s  {}  {}\n", step.name, s, ok ? "ok    " : "FAILED", step.what);
    if (!ok) {
      const auto text = base::ReadFile(log);
      fmt::print(stderr, "\n$ {}\n{}\n", command, text.ok() ? *text : std::string());
      return ReportError(base::FailedCheck("demo step {} exited with {}; its output is in {}",
                                           step.name, *rc, log.string()));
    }
  }
  const double total =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  fmt::print("\nall steps in {:.1f} s; each step's command and output: {}/steps/\n\n", total,
             out.string());
  fmt::print("headlines\n");
  if (auto status = PrintHeadlines(db); !status.ok()) {
    return ReportError(status.error());
  }
  // The departure and headway lines of the score (frota evaluate's own words).
  if (const auto score = base::ReadFile(out / "steps" / "evaluate.txt"); score.ok()) {
    fmt::print("\nscore against the truth\n");
    std::size_t begin = 0;
    while (begin < score->size()) {
      std::size_t end = score->find('\n', begin);
      if (end == std::string::npos) {
        end = score->size();
      }
      const std::string_view line(score->data() + begin, end - begin);
      if (line.starts_with("departures") || line.starts_with("headways")) {
        fmt::print("  {}\n", line);
      }
      begin = end + 1;
    }
  }
  fmt::print("\nresults\n");
  fmt::print("  database   {}   (tables: docs/tables.md; frota export --db {} --out DIR)\n", db,
             db);
  fmt::print("  dashboard  {}   (open it in a browser; works offline)\n", html);
  fmt::print("  scores     {}/steps/evaluate.txt\n", out.string());
  fmt::print("  proof      {}/steps/reconcile.txt\n", out.string());
  fmt::print("  headways   {}/steps/headways.txt\n", out.string());
  return kExitOk;
}

}  // namespace

void AddDemoCommand(CLI::App& app, CommandMain& run) {
  auto flags = std::make_shared<DemoFlags>();
  auto* sub = app.add_subcommand(
      "demo",
      "Simulate a compact city day, replay it into DuckDB, reconcile, compute headways, score "
      "everything against the truth and write a dashboard: the main job, with no data of your "
      "own");
  sub->add_option("--out", flags->out, "Folder for everything (default frota-demo)");
  sub->add_option("--vehicles", flags->vehicles, "Buses at the weekday peak (default 150)");
  sub->add_option("--seed", flags->seed, "Seed of the simulated day");
  sub->add_option("--date", flags->date,
                  "Service date to simulate (default 2024-06-05, a Wednesday)");
  sub->callback([&run, flags] { run = [flags]() -> int { return RunDemo(*flags); }; });
}

}  // namespace frota::cli
