//! The server's connections, held to limits so that no client can keep others out: a
//! request must arrive whole, body included, within `read_timeout` of its first byte (one
//! byte every few seconds gets a client nowhere), a kept-alive connection with no request, or with a
//! response its client does not read, is closed after `idle_timeout`, and at most
//! `max_connections` are open at once: when a new client comes and all are taken, the
//! connection that has waited longest without a request under way gives way (as nginx
//! reuses its idle keep-alive connections), one for each newcomer, who is taken in once it
//! has gone. Requests under way are never cut.
//!
//! Not here: what a request asks and what it gets (`routes`).

use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;
use tower::ServiceExt;

/// How long a client may take, and how many may be connected at once.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Connections open at once.
    pub max_connections: usize,
    /// From a request's first byte to its whole head (and any body read before it is
    /// answered).
    pub read_timeout: Duration,
    /// A connection with no request under way: waiting for the next one, or for its client
    /// to read the last answer.
    pub idle_timeout: Duration,
}

/// Descriptors the process keeps for itself besides its connections (standard streams,
/// the runtime's, a table or book file being opened).
const RESERVED_DESCRIPTORS: u64 = 32;

impl Limits {
    /// Connections at most by default: 1,024, fewer when the process may open fewer files.
    pub fn default_max_connections() -> usize {
        let most = 1024;
        descriptor_limit().map_or(most, |n| {
            (n.saturating_sub(RESERVED_DESCRIPTORS) as usize).clamp(1, most)
        })
    }
}

/// The process's limit of open files, where the system says it.
fn descriptor_limit() -> Option<u64> {
    #[cfg(target_os = "linux")]
    {
        let mut lim = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes the limit into `lim`, which it may.
        if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } == 0
            && lim.rlim_cur != libc::RLIM_INFINITY
        {
            return Some(lim.rlim_cur);
        }
    }
    None
}

/// Milliseconds since the server started.
#[derive(Clone, Copy)]
struct Clock(Instant);

impl Clock {
    fn now(&self) -> u64 {
        self.0.elapsed().as_millis() as u64 + 1
    }

    /// The instant of `now`'s reading `t`.
    fn at(&self, t: u64) -> tokio::time::Instant {
        tokio::time::Instant::from_std(self.0 + Duration::from_millis(t.saturating_sub(1)))
    }
}

/// A request's body that fails once its deadline has passed: a client that sends a head
/// and then its body slowly, or never, is answered with an error and closed.
struct Deadline {
    body: Incoming,
    expiry: Pin<Box<tokio::time::Sleep>>,
}

impl Deadline {
    fn new(body: Incoming, at: tokio::time::Instant) -> Deadline {
        Deadline {
            body,
            expiry: Box::pin(tokio::time::sleep_until(at)),
        }
    }
}

/// The error of a body past its deadline (`Deadline`), answered 408.
#[derive(Debug)]
pub struct BodyTooLate;

impl std::fmt::Display for BodyTooLate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the request's body did not arrive within the read timeout"
        )
    }
}

impl std::error::Error for BodyTooLate {}

impl BodyTooLate {
    /// Whether `e`, or an error it comes from, is a body past its deadline.
    pub fn caused(e: &(dyn std::error::Error + 'static)) -> bool {
        let mut at = Some(e);
        while let Some(e) = at {
            if e.is::<BodyTooLate>() {
                return true;
            }
            at = e.source();
        }
        false
    }
}

impl hyper::body::Body for Deadline {
    type Data = axum::body::Bytes;
    type Error = Box<dyn std::error::Error + Send + Sync>;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<hyper::body::Frame<axum::body::Bytes>, Self::Error>>> {
        if let Poll::Ready(frame) = Pin::new(&mut self.body).poll_frame(cx) {
            return Poll::Ready(frame.map(|f| f.map_err(Into::into)));
        }
        match self.expiry.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Some(Err(Box::new(BodyTooLate)))),
            Poll::Pending => Poll::Pending,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.body.size_hint()
    }
}

/// What one connection is doing, shared by its reader, its service and its task.
struct State {
    clock: Clock,
    /// A request is being answered.
    busy: AtomicBool,
    /// When the connection last became idle (opened, or a request answered).
    idle_since: AtomicU64,
    /// When the first byte of the next request came (0: none yet).
    reading_since: AtomicU64,
    /// Rung to close the connection if it is not busy (its place is wanted).
    evict: Notify,
    /// Asked to give way and not yet gone (nor kept by a request that came first).
    leaving: AtomicBool,
    /// Rung when a request's first byte comes: its deadline replaces the idle one.
    started: Notify,
}

impl State {
    fn new(clock: Clock) -> State {
        State {
            clock,
            busy: AtomicBool::new(false),
            idle_since: AtomicU64::new(clock.now()),
            reading_since: AtomicU64::new(0),
            evict: Notify::new(),
            leaving: AtomicBool::new(false),
            started: Notify::new(),
        }
    }

    /// When the connection stopped doing anything useful: since its next request began
    /// to come, or since it fell idle; None while a request is answered.
    fn waiting_since(&self) -> Option<u64> {
        if self.busy.load(Relaxed) || self.leaving.load(Relaxed) {
            return None;
        }
        match self.reading_since.load(Relaxed) {
            0 => Some(self.idle_since.load(Relaxed)),
            t => Some(t),
        }
    }

    /// When the connection is to be closed, in the clock's milliseconds (None while busy).
    fn deadline(&self, limits: &Limits) -> Option<u64> {
        if self.busy.load(Relaxed) {
            return None;
        }
        Some(match self.reading_since.load(Relaxed) {
            0 => self.idle_since.load(Relaxed) + limits.idle_timeout.as_millis() as u64,
            t => t + limits.read_timeout.as_millis() as u64,
        })
    }
}

/// A TCP stream that notes when the first byte of a request arrives.
struct Noted {
    stream: TcpStream,
    state: Arc<State>,
}

impl AsyncRead for Noted {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.stream).poll_read(cx, buf);
        let s = &self.state;
        if buf.filled().len() > before
            && !s.busy.load(Relaxed)
            && (s.reading_since)
                .compare_exchange(0, s.clock.now(), Relaxed, Relaxed)
                .is_ok()
        {
            s.started.notify_one();
        }
        polled
    }
}

impl AsyncWrite for Noted {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}

/// The open connections, by number.
#[derive(Default)]
struct Open {
    next: u64,
    states: HashMap<u64, Arc<State>>,
}

impl Open {
    /// Asks the connection that has waited longest, with no request under way, to close;
    /// false if every one is answering a request.
    fn evict_one(&self) -> bool {
        let oldest = self
            .states
            .values()
            .filter_map(|s| Some((s.waiting_since()?, s)))
            .min_by_key(|(t, _)| *t);
        match oldest {
            Some((_, s)) => {
                s.leaving.store(true, Relaxed);
                s.evict.notify_one();
                true
            }
            None => false,
        }
    }

    /// Whether a connection was asked to give way and has not gone yet.
    fn one_leaving(&self) -> bool {
        self.states.values().any(|s| s.leaving.load(Relaxed))
    }
}

/// Accepts connections on `listener` and serves `router` on each, within `limits`, until
/// `stop` resolves; then lets the requests under way finish, for `SHUTDOWN_GRACE` at
/// most, and returns.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: Limits,
    stop: impl std::future::Future<Output = ()>,
) {
    let clock = Clock(Instant::now());
    let open = Arc::new(Mutex::new(Open::default()));
    let (shutdown, stopping) = tokio::sync::watch::channel(false);
    let mut tasks = tokio::task::JoinSet::new();
    // Rung when a connection has gone.
    let room = Arc::new(Notify::new());
    tokio::pin!(stop);
    loop {
        // At the cap, a place is made before a newcomer is taken in: the connection that
        // has waited longest gives way, and the newcomer waits in the system's queue until
        // it has gone, so that no more than the cap are ever open. Where every place
        // answers a request, the newcomer is taken in only to be told to come back.
        let make_room = {
            let open = open.lock().expect("not poisoned");
            open.states.len() >= limits.max_connections && (open.one_leaving() || open.evict_one())
        };
        if make_room {
            tokio::select! {
                () = &mut stop => break,
                () = room.notified() => {}
                Some(_) = tasks.join_next(), if !tasks.is_empty() => {}
                // A connection asked to give way while a request came finishes it first.
                () = tokio::time::sleep(Duration::from_millis(500)) => {}
            }
            continue;
        }
        let accepted = tokio::select! {
            () = &mut stop => break,
            accepted = listener.accept() => accepted,
            Some(_) = tasks.join_next(), if !tasks.is_empty() => continue,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(e) if is_out_of_descriptors(&e) => {
                // Make room, and try again a little later.
                open.lock().expect("not poisoned").evict_one();
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
            Err(_) => continue, // the client gave up before it was accepted
        };
        // Best effort: a system that refuses keeps its own size.
        let _ = socket2::SockRef::from(&stream).set_send_buffer_size(SEND_BUFFER);
        let state = Arc::new(State::new(clock));
        let id = {
            let mut open = open.lock().expect("not poisoned");
            if open.states.len() >= limits.max_connections {
                // Every place answers a request: this client is told to come back.
                drop(open);
                refuse(stream);
                continue;
            }
            open.next += 1;
            let id = open.next;
            open.states.insert(id, state.clone());
            id
        };
        let (router, open, stopping) = (router.clone(), open.clone(), stopping.clone());
        let room = room.clone();
        tasks.spawn(async move {
            connection(stream, router, state, limits, stopping).await;
            open.lock().expect("not poisoned").states.remove(&id);
            room.notify_one();
        });
    }
    drop(listener);
    let _ = shutdown.send(true);
    let finished = async { while tasks.join_next().await.is_some() {} };
    if tokio::time::timeout(SHUTDOWN_GRACE, finished)
        .await
        .is_err()
    {
        // A client holds its request open past the grace: it is cut, not waited for.
        tasks.abort_all();
    }
}

/// The system's buffer for a connection's answer, fixed: a client that does not read holds
/// at most this much of it there (the system would let it grow to megabytes per
/// connection), so that a streamed answer's work stops soon after (`routes::batch`).
const SEND_BUFFER: usize = 256 << 10;

/// Most bytes hyper buffers for a connection, either way: an answer a client does not read
/// waits in the system's buffer, not ours.
const CONNECTION_BUFFER: usize = 64 << 10;

/// How long the requests under way may take to finish once the server is stopping.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// Whether `e` says the process, or the system, has no descriptor left.
fn is_out_of_descriptors(e: &io::Error) -> bool {
    #[cfg(target_os = "linux")]
    {
        matches!(e.raw_os_error(), Some(libc::EMFILE | libc::ENFILE))
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = e;
        false
    }
}

/// Tells a client for whom there is no place to try again, and closes (without waiting:
/// a fresh socket's buffer takes the few bytes at once).
fn refuse(stream: TcpStream) {
    let body = r#"{"error":"too many connections: try again"}"#;
    let answer = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n\
         content-length: {}\r\nretry-after: 1\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.try_write(answer.as_bytes());
}

/// Serves one connection until it ends, times out, is evicted or the server stops.
async fn connection(
    stream: TcpStream,
    router: Router,
    state: Arc<State>,
    limits: Limits,
    mut stop: tokio::sync::watch::Receiver<bool>,
) {
    let io = TokioIo::new(Noted {
        stream,
        state: state.clone(),
    });
    let in_service = state.clone();
    let service = hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
        let state = in_service.clone();
        state.busy.store(true, Relaxed);
        // The body, read while the request is answered, must arrive by the deadline its
        // first byte set.
        let since = match state.reading_since.swap(0, Relaxed) {
            0 => state.clock.now(),
            t => t,
        };
        let deadline = state.clock.at(since) + limits.read_timeout;
        let request = request.map(|body| axum::body::Body::new(Deadline::new(body, deadline)));
        let answer = router.clone().oneshot(request);
        async move {
            let response = answer.await;
            state.idle_since.store(state.clock.now(), Relaxed);
            state.busy.store(false, Relaxed);
            response
        }
    });
    let conn = hyper::server::conn::http1::Builder::new()
        .keep_alive(true)
        .max_buf_size(CONNECTION_BUFFER)
        .serve_connection(io, service);
    tokio::pin!(conn);
    let mut stopping = *stop.borrow();
    if stopping {
        conn.as_mut().graceful_shutdown();
    }
    loop {
        let wait = match state.deadline(&limits) {
            Some(at) => Duration::from_millis(at.saturating_sub(state.clock.now())),
            // Busy: look again once a request could have been answered.
            None => limits.idle_timeout.min(Duration::from_secs(1)),
        };
        tokio::select! {
            _ = conn.as_mut() => return,
            () = tokio::time::sleep(wait) => {
                if state.deadline(&limits).is_some_and(|at| at <= state.clock.now()) {
                    return; // too slow or too long idle: dropped, so closed
                }
            }
            // A request began: its read deadline is nearer than the idle one.
            () = state.started.notified() => {}
            () = state.evict.notified() => {
                if !state.busy.load(Relaxed) {
                    return;
                }
                // A request came first: the place is given up once it is answered.
                conn.as_mut().graceful_shutdown();
            }
            _ = stop.changed(), if !stopping => {
                stopping = true;
                conn.as_mut().graceful_shutdown();
            }
        }
    }
}
