//! The `retrobook` command line: parses arguments and dispatches to the commands in `cli`.
//! Exit status: 0 success, 1 runtime failure, 2 usage error.

mod cli;
mod defaults;
mod output;
mod serve;
mod shown;
mod xiangqi_answer;

use clap::Parser;
use cli::args::{BookCommand, Cli, Command, GameArg, GraphCommand};
use output::Failure;
use std::process::ExitCode;

/// Keeps glibc's allocator from holding on to freed blocks of 128 KiB or more: `gen`
/// packs and unpacks a table's sides in pieces of a few megabytes, packed to a few hundred
/// kilobytes, and glibc, which raises its threshold for mapping blocks apart as large ones
/// are freed, would keep those pieces in its heaps, fragmented (KRPvKR peaked 1,179 MiB
/// instead of 910 MiB with no threshold set; 597-602 MiB with 1 MiB, which kept the packed
/// pieces unpacked while a side was made whole, and 575 MiB with 128 KiB).
fn release_freed_blocks() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets a parameter of the allocator; called before any thread
    // starts.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 << 10);
    }
}

fn main() -> ExitCode {
    release_freed_blocks();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => e.exit(), // --help, --version
        Err(e) => {
            // One line, as for every other error: clap's message without its "error: " and
            // its usage lines, the arguments it lists joined to it.
            let text = e.to_string();
            let message: Vec<&str> = text
                .split("\n\n")
                .next()
                .unwrap_or("invalid arguments")
                .lines()
                .map(str::trim)
                .collect();
            eprintln!(
                "retrobook: {} (see retrobook --help)",
                message.join(" ").trim_start_matches("error: ")
            );
            return ExitCode::from(2);
        }
    };
    let result = match cli.command {
        Command::Gen {
            signatures,
            all,
            tables,
            threads,
            memory,
            plan,
            json,
            game,
            all_attackers,
        } => match game {
            GameArg::Chess if all_attackers.is_some() => Err(output::usage(
                "--all-attackers builds xiangqi tables: give --game xiangqi",
            )),
            GameArg::Chess => {
                cli::tables::cmd_gen(&signatures, all, &tables, threads, memory, plan, json)
            }
            GameArg::Xiangqi if all.is_some() => Err(output::usage(
                "--all is for chess tables; xiangqi takes signatures or --all-attackers",
            )),
            GameArg::Xiangqi => cli::args::threads_arg(threads).and_then(|threads| {
                cli::xiangqi::cmd_gen(
                    &signatures,
                    all_attackers,
                    &tables,
                    threads,
                    memory,
                    plan,
                    json,
                )
            }),
        },
        Command::Info {
            table,
            tables,
            json,
            game,
        } => match (game, cli::xiangqi::is_xiangqi_file(&table)) {
            (GameArg::Xiangqi, _) | (_, true) => cli::xiangqi::cmd_info(&table, &tables, json),
            _ => cli::tables::cmd_info(&table, &tables, json),
        },
        Command::Probe {
            fens,
            tables,
            json,
            game: GameArg::Chess,
        } => cli::tables::cmd_probe(&fens, &tables, json),
        Command::Probe {
            fens, tables, json, ..
        } => cli::xiangqi::cmd_probe(&fens, &tables, json),
        Command::Verify {
            signatures,
            tables,
            all_dtz,
            game: GameArg::Chess,
        } => cli::tables::cmd_verify(&signatures, &tables, all_dtz),
        Command::Verify { all_dtz: true, .. } => Err(output::usage(
            "--all-dtz: Chinese chess tables hold no distances to zeroing",
        )),
        Command::Verify {
            signatures, tables, ..
        } => cli::xiangqi::cmd_verify(&signatures, &tables),
        Command::Judge {
            archive: Some(archive),
            game: GameArg::Xiangqi,
            json,
            ..
        } => cli::judge::cmd_judge(&archive, json),
        Command::Judge {
            fen: Some(fen),
            moves: Some(moves),
            game: GameArg::Xiangqi,
            json,
            ..
        } => cli::judge::cmd_judge_loop(&fen, &moves, json),
        Command::Judge { .. } => Err(output::usage(
            "judge rules repetitions by the Asian rules of Chinese chess: give --game xiangqi",
        )),
        Command::Perft { fen, depth, game } => cli::perft::cmd_perft(game, &fen, depth),
        Command::Book(BookCommand::Build {
            archives,
            out,
            max_ply,
            min_games,
            min_elo,
            memory,
            threads,
            game,
            json,
        }) => cli::args::threads_arg(threads).and_then(|threads| {
            let opts = retrobook::book::BuildOptions {
                max_ply,
                min_games,
                min_elo,
                memory: memory << 20,
                threads,
                game: game.into(),
                share: Default::default(),
            };
            let out = defaults::book_path(out, opts.game);
            cli::book::cmd_build(&archives, &out, &opts, json)
        }),
        Command::Book(BookCommand::Probe {
            fens,
            book,
            game,
            json,
        }) => {
            let game = game.map(Into::into);
            let book = defaults::book_path(book, game.unwrap_or(retrobook::Game::Chess));
            cli::book::cmd_probe(&fens, &book, game, json)
        }
        Command::Graph(GraphCommand::Solve { file, root, json }) => {
            cli::graph::cmd_solve(&file, root.as_deref(), json)
        }
        Command::Book(BookCommand::Merge { books, out }) => cli::book::cmd_merge(&books, &out),
        Command::Book(BookCommand::Export { format, book, out }) => {
            cli::book::cmd_export(&format, &book, &out)
        }
        Command::Book(BookCommand::Analyse {
            book,
            engine,
            engine_arg,
            depth,
            nodes,
            min_games,
            threads,
            hash,
            timeout,
            json,
        }) => cli::args::threads_arg(threads).and_then(|threads| {
            // An engine takes depth 0 for no limit at all: it would never answer.
            let limit = match (depth, nodes) {
                (_, Some(0)) | (Some(0), _) => {
                    return Err(output::usage("--depth and --nodes must be at least 1"))
                }
                (_, Some(n)) => retrobook::engine::Limit::Nodes(n),
                (d, None) => retrobook::engine::Limit::Depth(d.unwrap_or(12)),
            };
            let opts = retrobook::book::AnalyseOptions {
                program: engine,
                args: engine_arg,
                limit,
                min_games,
                threads: threads.count(),
                hash_mib: hash,
                timeout: cli::args::seconds_arg("--timeout", timeout)?,
            };
            cli::book::cmd_analyse(&book, &opts, json)
        }),
        Command::Book(BookCommand::Backup {
            book,
            min_games,
            json,
        }) => cli::book::cmd_backup(&book, min_games, json),
        Command::Serve {
            tables,
            book,
            bind,
            max_connections,
            read_timeout,
            idle_timeout,
        } => serve::limits(max_connections, read_timeout, idle_timeout)
            .and_then(|limits| serve::cmd_serve(tables, book, &bind, limits)),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure(_, 0)) => ExitCode::SUCCESS,
        Err(Failure(msg, code)) => {
            eprintln!("retrobook: {msg}");
            ExitCode::from(code)
        }
    }
}
