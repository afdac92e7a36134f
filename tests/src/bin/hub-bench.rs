//! Coordination hub benchmark driver (`scripts/bench-hub`), against a hub served on 127.0.0.1:
//! 1. file lock round trips (`announce_file_change` then `release_file_lock`) per second through
//!    MCP over HTTP from `AGENTS` agents at once, each its own client and file, for `SECONDS`,
//!    with the hub's CPU per round trip (from `/proc/PID/stat`); beside it, in the same run, the
//!    ceiling its store sets: lease acquire and release on `Records` opened in this process at
//!    `RECORDS` (the hub's own database), from as many tasks;
//! 2. the hub's resident memory per registered agent: `REGISTERED` more agents registered, from
//!    `/proc/PID/status` before and after;
//! 3. what a capped write costs as its collection fills: `add_todo` (at most 10 000 todos a
//!    project) from the same agents, the hub's CPU per call for the first thousand todos, the
//!    thousand to 5 000 and the last thousand, then per refusal past the cap. Flat is right:
//!    the count is kept, not read off the collection;
//! 4. an announce while others hold 100 of the costliest patterns to compare (four brace
//!    alternatives, a class of 100 ranges each), wall time per announce: a project must not
//!    stall for anyone's patterns (the aim is under 50 ms).
//!
//! Usage: `hub-bench URL PID RECORDS [SECONDS] [AGENTS] [REGISTERED]`, RECORDS being a SQLite
//! file or a `postgres://` URL.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use a2a_runtime::records::Records;
use coordination_hub::HubClient;
use coordination_hub::model::ReservationMode;

#[tokio::main]
async fn main() {
    let usage = "usage: hub-bench URL PID RECORDS [SECONDS] [AGENTS] [REGISTERED]";
    let mut args = std::env::args().skip(1);
    let url = args.next().expect(usage);
    let pid: u32 = args.next().expect(usage).parse().expect(usage);
    let records = args.next().expect(usage);
    let number =
        |arg: Option<String>, default: u64| arg.map_or(default, |n| n.parse().expect(usage));
    let seconds = number(args.next(), 10);
    let agents = number(args.next(), 16);
    let registered = number(args.next(), 1000);

    let clients = connect(&url, agents).await;
    round_trips(&clients, 2).await; // warm up
    let cpu = cpu_ticks(pid);
    let started = Instant::now();
    let trips = round_trips(&clients, seconds).await;
    let elapsed = started.elapsed().as_secs_f64();
    let cpu_us = (cpu_ticks(pid) - cpu) as f64 * 1e6 / ticks_per_second();
    println!(
        "hub lock round trips: {:.0}/s from {agents} agents over MCP, hub CPU {:.0} us per round trip",
        trips as f64 / elapsed,
        cpu_us / trips as f64
    );
    let ceiling = leases_per_second(&records, agents, seconds.min(5)).await;
    println!(
        "store ceiling: {ceiling:.0} lease acquire+release/s in-process ({:.1}% reached through MCP)",
        trips as f64 / elapsed * 100.0 / ceiling
    );

    memory_per_agent(pid, &clients[0], registered).await;
    capped_writes(&clients, pid).await;
    worst_case_announces(&clients).await;
}

/// A pattern costly to compare: four alternatives, a class of 100 ranges of 61 characters each,
/// its ranges `n`'s own (so no two such patterns share a path). The characters are unassigned
/// (planes 4 to 13), which Unicode normalization leaves as they are.
fn costly_pattern(n: u32) -> String {
    let class: String = (0..100u32)
        .filter_map(|k| {
            let start = 0x4_0000 + (n * 100 + k) * 64;
            Some(format!(
                "{}-{}",
                char::from_u32(start)?,
                char::from_u32(start + 60)?
            ))
        })
        .collect();
    format!("costly/{{a,?,?,?}}[{class}]")
}

/// The wall time of announces while the agents hold 100 costly patterns in project `worst`.
async fn worst_case_announces(clients: &[HubClient]) {
    let announce = |client: &HubClient, session: String, path: String| {
        let client = client.clone();
        async move {
            client
                .announce_file_change(
                    Some("worst".into()),
                    session,
                    path,
                    "modify".into(),
                    "bench".into(),
                    Some(ReservationMode::Exclusive),
                    None,
                )
                .await
        }
    };
    register_all(clients, "worst").await;
    let holders = clients.len().saturating_sub(1).max(1);
    for n in 0..100u32 {
        let at = n as usize % holders;
        announce(&clients[at], format!("agent-{at}"), costly_pattern(n))
            .await
            .expect("a costly pattern is reserved");
    }
    let last = clients.len() - 1;
    let mut times = Vec::new();
    for n in 100..120u32 {
        let started = Instant::now();
        announce(&clients[last], format!("agent-{last}"), costly_pattern(n))
            .await
            .expect("announces");
        times.push(started.elapsed().as_secs_f64() * 1000.0);
    }
    times.sort_by(f64::total_cmp);
    println!(
        "announce with 100 costly patterns held: median {:.1} ms, worst {:.1} ms (aim: under 50 ms)",
        times[times.len() / 2],
        times[times.len() - 1]
    );
}

/// Registers each client in `project` as `agent-{i}`.
async fn register_all(clients: &[HubClient], project: &str) {
    for (i, client) in clients.iter().enumerate() {
        client
            .register_agent(
                Some(project.into()),
                format!("agent-{i}"),
                "t".into(),
                "main".into(),
                "benchmark".into(),
            )
            .await
            .expect("registers");
    }
}

/// The todo cap of a hub started with its defaults.
const TODO_CAP: u64 = 10_000;

/// The hub's CPU per `add_todo` while the project `capped` fills up to [`TODO_CAP`], and per
/// refusal past it; the last line is the ratio of the last thousand's to the first's.
async fn capped_writes(clients: &[HubClient], pid: u32) {
    register_all(clients, "capped").await;
    let mut per_call = Vec::new();
    let mut written = 0;
    for (label, until) in [
        ("0-1k", 1_000),
        ("1k-4k", 4_000),
        ("4k-5k", 5_000),
        ("5k-9k", 9_000),
        ("9k-10k", TODO_CAP),
        ("refused", TODO_CAP + 1_000),
    ] {
        let cpu = cpu_ticks(pid);
        let calls = until - written;
        let refused = add_todos(clients, written, calls).await;
        written = until;
        let us = (cpu_ticks(pid) - cpu) as f64 * 1e6 / ticks_per_second() / calls as f64;
        if label != "1k-4k" && label != "5k-9k" {
            println!("capped writes {label}: hub CPU {us:.0} us per call ({refused} refused)");
            per_call.push(us);
        }
    }
    println!(
        "capped writes: last thousand / first thousand = {:.2}, refusal / first write = {:.2}",
        per_call[2] / per_call[0],
        per_call[3] / per_call[0]
    );
}

/// `calls` more `add_todo`s in project `capped`, numbered from `from`, spread over the clients
/// at once: how many were refused as over the cap.
async fn add_todos(clients: &[HubClient], from: u64, calls: u64) -> u64 {
    let refused = Arc::new(AtomicU64::new(0));
    let count = clients.len() as u64;
    let workers: Vec<_> = clients
        .iter()
        .cloned()
        .enumerate()
        .map(|(i, client)| {
            let refused = Arc::clone(&refused);
            tokio::spawn(async move {
                let mut n = from + i as u64;
                while n < from + calls {
                    let added = client
                        .add_todo(
                            Some("capped".into()),
                            format!("agent-{i}"),
                            format!("t{n}"),
                            1,
                        )
                        .await;
                    if added.is_err() {
                        refused.fetch_add(1, Ordering::Relaxed);
                    }
                    n += count;
                }
            })
        })
        .collect();
    for worker in workers {
        worker.await.expect("worker");
    }
    refused.load(Ordering::Relaxed)
}

/// `agents` clients of the hub at `url`, each an agent registered in project `bench`.
async fn connect(url: &str, agents: u64) -> Vec<HubClient> {
    let mcp = format!("{}/mcp", url.trim_end_matches('/'));
    let mut clients = Vec::new();
    for i in 0..agents {
        let client = HubClient::connect_mcp(mcp.clone()).await.expect("the hub");
        client
            .register_agent(
                Some("bench".into()),
                format!("agent-{i}"),
                "t".into(),
                "main".into(),
                "benchmark".into(),
            )
            .await
            .expect("registers");
        clients.push(client);
    }
    clients
}

/// Lock round trips (announce, then release) each client makes on a file of its own for
/// `seconds`, all at once.
async fn round_trips(clients: &[HubClient], seconds: u64) -> u64 {
    let done = Arc::new(AtomicU64::new(0));
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let workers: Vec<_> = clients
        .iter()
        .cloned()
        .enumerate()
        .map(|(i, client)| {
            let done = Arc::clone(&done);
            tokio::spawn(async move {
                let (session, path) = (format!("agent-{i}"), format!("src/file{i}.rs"));
                while Instant::now() < deadline {
                    client
                        .announce_file_change(
                            Some("bench".into()),
                            session.clone(),
                            path.clone(),
                            "modify".into(),
                            "bench".into(),
                            Some(ReservationMode::Exclusive),
                            None,
                        )
                        .await
                        .expect("locks");
                    client
                        .release_file_lock(Some("bench".into()), session.clone(), path.clone())
                        .await
                        .expect("releases");
                    done.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    for worker in workers {
        worker.await.expect("worker");
    }
    done.load(Ordering::Relaxed)
}

/// The hub's resident memory before and after `registrar` registers `registered` more agents.
async fn memory_per_agent(pid: u32, registrar: &HubClient, registered: u64) {
    let before = rss_kib(pid);
    for i in 0..registered {
        registrar
            .register_agent(
                Some("crowd".into()),
                format!("member-{i}"),
                format!("{i}"),
                "main".into(),
                "one of many".into(),
            )
            .await
            .expect("registers");
    }
    let listed = registrar
        .list_active_agents(Some("crowd".into()))
        .await
        .expect("lists");
    assert_eq!(listed.len() as u64, registered);
    let after = rss_kib(pid);
    println!(
        "hub memory: {before} KiB before, {after} KiB after {registered} agents: {:.2} KiB per agent",
        (after as f64 - before as f64) / registered as f64
    );
}

/// Lease acquire and release round trips per second on `location`, from `tasks` tasks.
async fn leases_per_second(location: &str, tasks: u64, seconds: u64) -> f64 {
    let records = if location.starts_with("postgres") {
        Records::postgres(location).await.expect("postgres")
    } else {
        Records::sqlite(location).await.expect("sqlite")
    };
    let leases = records.leases("bench-ceiling");
    let done = Arc::new(AtomicU64::new(0));
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let started = Instant::now();
    let workers: Vec<_> = (0..tasks)
        .map(|i| {
            let (leases, done) = (leases.clone(), Arc::clone(&done));
            tokio::spawn(async move {
                let (key, holder) = (format!("file{i}"), format!("agent-{i}"));
                while Instant::now() < deadline {
                    leases
                        .acquire(&key, &holder, Duration::from_secs(60), &())
                        .await
                        .expect("acquires");
                    leases.release(&key, &holder).await.expect("releases");
                    done.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    for worker in workers {
        worker.await.expect("worker");
    }
    done.load(Ordering::Relaxed) as f64 / started.elapsed().as_secs_f64()
}

/// The process's user and system CPU time, in clock ticks.
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("/proc stat");
    // Fields after the command (which may hold spaces) start after its closing parenthesis.
    let rest = &stat[stat.rfind(')').expect("stat format") + 2..];
    let fields: Vec<&str> = rest.split(' ').collect();
    fields[11].parse::<u64>().expect("utime") + fields[12].parse::<u64>().expect("stime")
}

fn ticks_per_second() -> f64 {
    100.0
}

/// The process's resident set, in KiB.
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc status");
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .expect("VmRSS")
}
