//! Runs split across the processes of an MPI job (cargo feature `mpi`, Open MPI through the
//! `mpi` crate). A process started by `mpirun` with other processes joins the job
//! (`Cluster::join`); each command that can be split (`book build`, `gen`) does its share and exchanges
//! the rest, and the files written are those one process writes, byte for byte.
//!
//! A process that fails ends the whole job (`Cluster::abort`): the others would wait for it
//! forever. Files are written under a temporary name and renamed when whole, so a failed
//! job leaves nothing under the final name.

pub mod peers;

use mpi::environment::Universe;
use mpi::topology::{Communicator, SimpleCommunicator};

/// Makes a panic abort this process once it is reported: a process of a job that panics
/// must end the job (`mpirun` then stops the others), and unwinding would finalise MPI,
/// which waits for the others while they wait in a collective call for it.
fn abort_on_panic() {
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        report(info);
        std::process::abort();
    }));
}

/// This process's place in an MPI job.
pub struct Cluster {
    /// Keeps MPI initialised while the cluster lives (finalised when dropped).
    _universe: Universe,
    world: SimpleCommunicator,
}

impl Cluster {
    /// The job this process belongs to, when `mpirun` (or another launcher of Open MPI or
    /// of PMI) started it among two or more processes; None for a process on its own, which
    /// then never initialises MPI.
    pub fn join() -> Option<Cluster> {
        let size = ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"]
            .iter()
            .find_map(|v| std::env::var(v).ok()?.parse::<u32>().ok())?;
        if size < 2 {
            return None;
        }
        // The solver's collective calls come from the thread that drives a table's solve,
        // not always the first (`peers::MpiPeers`).
        let (universe, _) = mpi::initialize_with_threading(mpi::Threading::Serialized)?;
        abort_on_panic();
        let world = universe.world();
        Some(Cluster {
            _universe: universe,
            world,
        })
    }

    /// This process's rank, `0..size()`.
    pub fn rank(&self) -> u32 {
        self.world.rank() as u32
    }

    /// Processes in the job.
    pub fn size(&self) -> u32 {
        self.world.size() as u32
    }

    /// Rank 0 writes the files and speaks for the job.
    pub fn is_root(&self) -> bool {
        self.rank() == 0
    }

    /// Ends every process of the job with `code` (after this one has said why).
    pub fn abort(&self, code: i32) -> ! {
        self.world.abort(code)
    }

    pub(crate) fn world(&self) -> &SimpleCommunicator {
        &self.world
    }
}

#[cfg(test)]
mod tests {
    /// Set in the child process of `a_panic_aborts_the_process`.
    const CHILD: &str = "RETROBOOK_PANIC_CHILD";

    /// A process of a job that panics dies of SIGABRT after reporting the panic, instead of
    /// unwinding (which would exit with 101 after finalising MPI): the test runs itself
    /// again as a child that panics.
    #[test]
    fn a_panic_aborts_the_process() {
        if std::env::var_os(CHILD).is_some() {
            super::abort_on_panic();
            panic!("a panic in a process of the job");
        }
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "cluster::tests::a_panic_aborts_the_process",
                "--nocapture",
            ])
            .env(CHILD, "1")
            .output()
            .unwrap();
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(out.status.signal(), Some(libc::SIGABRT), "{:?}", out.status);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("a panic in a process of the job"), "{err}");
    }
}
