/*
 * ADR-114's lease protocol for one role, model-checked with Spin (issue 19; the markers, issues 27
 * and 30).
 *
 * One row of leader_leases, NREP replicas running Manager::lead in a loop, each of which may die
 * at any point or be shut down during a tick; an operator who pauses and unpauses (PAUSES times);
 * and FAILOVERS promotions of an asynchronous standby that lost every commit of the last LAG
 * seconds or less. Every statement is one atomic step on the database clock:
 *
 *   ACQUIRE, RENEW, RELEASE   engine/core/lease/statements.cpp (AcquireSql, RenewSql, ReleaseSql)
 *   PAUSE, UNPAUSE            migrations/lease/0174_leader_leases.up.sql (leader_pause/unpause)
 *   the fence                 leader_fence() in the same migration: the guard of every claim
 *   not_before                migrations/lease/0175_not_before.up.sql
 *   heartbeat, abandon,       engine/core/lease/manager.cpp (Manager::lead, heartbeat, releaseTick)
 *   outcomes, RELEASE retry   and engine/core/lease/tick.cpp (the abandon judged before a statement)
 *   markers (-DMARKERS)       migrations 0179 and 0180; engine/core/lease/markerstate.cpp (what the
 *                             holder knows of its marker, the gate, the repair deadline),
 *                             manager.cpp (watchRepairs, markerGate), deathwatch.cpp (the grace)
 *
 * Variants, one file:
 *   default        this project's statements: ACQUIRE issues greatest(holder_token + 1, epoch ms
 *                  of now()); RENEW and RELEASE prove holder_id as well as the token
 *   -DLITERAL      ADR-114's statements as written: holder_token + 1; RENEW and RELEASE on the
 *                  token (and holder_id IS NOT NULL) alone
 *   -DCLOCK_BEHIND the standby's clock may be behind the primary's by as much as the failover
 *                  takes: the amendment's assumption broken
 *   -DNO_TOKEN_CHECK  leaves the "token issued twice" assertion out, so that the search goes on
 *                  to the double fence the duplicate token leads to
 *   -DMARKERS      the takeover at process death with a repairable marker (migrations 0179 and
 *                  0180, issue 30): the section "Markers" below says what is modelled. Not with
 *                  LITERAL: the ADR's statements have no marker
 *   with MARKERS, each of these removes one part of the protocol, for its counterexample:
 *   -DNO_INCARNATION     the incarnation test in ACQUIRE's early take
 *   -DNO_GRACE           the contender's grace: it takes as soon as the lock is free
 *   -DNO_SELF_PROTECTION the holder's deadline: a holder that cannot repair keeps working
 *   -DNO_REPAIR          the holder's RENEW at once when its marker ends (the deadline stays)
 *   -DNO_FRESH_PROOF     the gate's freshness test (the gate trusts a listener that may have
 *                        been stopped since it last looked)
 *   and -DCUT_TERMINATION lets a marker be terminated while its holder is cut off from the
 *   server (an operator's or a reaper's pg_terminate_backend, a proxy's idle cut), which the
 *   protocol does not cover: the search finds the overlap. -DSTALE_END_REPAIRED is the amendment
 *   proposed for a freeze across a termination and a restart (see SERVER_ENDS). Each
 *   -DREACH_... makes one assertion of something that must be reachable, for its "counterexample".
 *
 * Time. The unit is one second, so the constants keep their ratios exactly: TTL 10, heartbeat 3,
 * abandon 6, statement timeout 2 (engine/core/lease/constants.h). A clock process ticks at any moment,
 * so a replica may be arbitrarily slow between two of its steps (a freeze, a GC pause, a slow
 * host); with MARKERS, only within the deadlines below, and a freeze is an event of its own. The
 * clock is unbounded: the state keeps no absolute time, only how far each timestamp is
 * from now, and each of those saturates where no guard can tell further values apart (the
 * CAP/FLOOR constants below; a saturated value stays saturated across any clock jump the model
 * allows). The replicas' monotonic clocks run at one rate; now() is the primary's clock, and a
 * promotion moves it by the two servers' difference, at most SKEW either way.
 *
 * Tokens. This project's token is the greater of holder_token + 1 and now() in epoch ms; with a
 * second as the unit it is the pair (instant, n): issued at that instant, n-th within it. The
 * model keeps, for each token it stores, how long ago its instant was (tokAge) and n (tokSeq):
 * enough to evaluate greatest() and to compare a new token with the largest ever issued, which
 * is the "issued twice" check. Tokens are told apart by a small id; that is exact because the
 * check above proves every issued token larger than all before it, so no two ids share a value.
 * The literal variant's tokens are plain counters (holder_token + 1), bounded by LIT_TOKENS
 * acquisitions; it is searched for its counterexample, not proved.
 *
 * Each statement executes at the instant it is sent, or fails; its own latency (up to the 2 s
 * timeout) is left out. The defaults below are the bounds tests/model/run-spin.sh checks (the
 * markers runs pass theirs, LAG 0 among them); what they leave out is in docs/lease-runtime.md.
 *
 * Properties, each an assertion on a ghost flag named for what went wrong: tokenIssuedTwice,
 * twoReplicasPassTheFence, pausedRoleClaimed, deadHoldersRoleNotAcquirable,
 * interruptedTickNotDue, cooldownNotWaited; with -DMARKERS, liveHolderTakenEarly,
 * takenHolderStartsClaim, repairableTickCancelled and twoReplicasWork, or with freezes
 * (-DFREEZES=n) twoReplicasWorkNoneFrozen and resumedHolderWorksOn in its place; with
 * -DLIVENESS, the LTL property deadHoldersRoleIsTaken, for pan -a -f (weak fairness).
 *
 * Markers (-DMARKERS). Each replica's marker session holds an advisory lock while it lives;
 * ACQUIRE and RENEW record its key and the server's incarnation when the row's early_take switch
 * is on and they find the lock held; ACQUIRE takes a held, unexpired row early when the key it
 * names is free on the same incarnation, the switch is on, and the contender's grace (G, 200 ms)
 * since it saw the lock free has run out. A marker may end while its process lives, up to
 * MARKER_LOSSES times in a run (a terminated backend, an idle cut); the holder then, within B
 * (100 ms), lands a RENEW that no longer names the ended key (the repair: NULL, or the new key
 * once the listener has reconnected) or cancels its tick (the self-protection); a statement of
 * the tick starts only if the key its row names is the listener's live key and the listener
 * looked within F (150 ms) (the gate). A replica may be frozen (all threads stopped, FREEZES
 * times) or cut off from the server (its statements fail and nothing of the server reaches it,
 * CUTS times). A failover or restart ends every marker and the server says so (FATAL 57P01..03):
 * the holder keeps the TTL rules. The operator may flip the row's early_take switch FLIPS times.
 *
 * G, B and F are far below the unit, so they are orderings, not durations: a marker's end opens a
 * window (win[]) that closes before the clock moves; while it is open no ACQUIRE may take the row
 * early on that key (the grace), and it closes only once the holder, if running, has repaired or
 * cancelled (B + the cancel < G), or at once if there is nothing to repair. If the holder was
 * frozen at some instant of the window (WIN_MISSED: the exception, a freeze longer than G - B),
 * or cut off before it could read the end (WIN_UNHEARD, only with CUT_TERMINATION), it may close
 * with the work still running. A resumed holder's F-old look is stale (a freeze here is longer
 * than F; a shorter one leaves it statements that start before any take, as F < G). The
 * listener reads an end of file at once while its process runs. And a running holder's work
 * stops by AbandonAfter + StatementTimeout after its last acknowledged beat (a RENEW sent just
 * before the abandon may hang for its timeout): the clock does not pass that instant while the
 * work runs. So time in the model passes only when no sub-second deadline is pending.
 */

#ifndef NREP
#define NREP 2
#endif
#ifndef LAG
#define LAG 1                /* the longest a cut standby falls behind before the primary dies */
#endif
#ifndef FAILOVERS
#define FAILOVERS 1          /* promotions in a run; 255 is no bound */
#endif
#ifndef PAUSES
#define PAUSES 1             /* pause-unpause cycles in a run; 255 is no bound */
#endif
#ifndef LIT_TOKENS
#define LIT_TOKENS 4
#endif
#ifndef MARKER_LOSSES
#define MARKER_LOSSES 2      /* markers ended while their process lives, in a run */
#endif
#ifndef FREEZES
#define FREEZES 0            /* replicas frozen (SIGSTOP, a VM pause), in a run */
#endif
#ifndef CUTS
#define CUTS 0               /* replicas cut off from the server, in a run */
#endif
#ifndef FLIPS
#define FLIPS 0              /* flips of the row's early_take switch, in a run */
#endif
#if defined(MARKERS) && defined(LITERAL)
#error "MARKERS models this project's statements: not with LITERAL"
#endif

#define TTL 10
#define HB 3
#define ABANDON 6
#define STMT 2
#define IV 2           /* the role's interval: ACQUIRE waits it after a completed tick */
#define LOSTCAP 60     /* a lost tick's cooldown is min(interval, 60 s) */
#define SEQMAX 8       /* tokens one instant may issue: far below the 1000 of a real millisecond */

/* A promotion takes at least FOTIME, from the old primary's last commit to the new primary's
 * first; the standby's clock differs from the primary's by at most SKEW. The amendment assumes
 * SKEW < FOTIME, so now() moves forward across every promotion. */
#define FOTIME 2
#ifdef CLOCK_BEHIND
#define SKEW 2
#else
#define SKEW 1
#endif

/* Saturation. A promotion may move now() back by SKEW relative to the values it restores, so a
 * saturated value keeps that much margin beyond the last value any guard distinguishes; the
 * outage before the next promotion (FOTIME >= SKEW) ages it back to saturation. */
#define SHIFT SKEW
#define FLOOR (-SHIFT)             /* remaining times: <= 0 has passed; NULL is FLOOR */
#define END_CAP (IV + SHIFT)       /* age of last_tick_ended_at: >= IV is due; NULL is END_CAP */
#define AGE_CAP (1 + SHIFT)        /* a token's age: > 0 is before now() */

#define MAX(a, b) ((a) > (b) -> (a) : (b))
#define MIN(a, b) ((a) < (b) -> (a) : (b))

/* The row (leader_leases, one role), each timestamp relative to now(). acquired_at,
 * last_tick_holder and the pause attribution are observability only and left out. */
#ifdef LITERAL
byte  token;                 /* the value itself; 0 is the seed */
#else
byte  tokId = 1;             /* 1 is the seed, issued at migration, long before */
short tokAge = AGE_CAP;
byte  tokSeq;
#endif
byte  holder;                /* holder_id; 0 is NULL */
short expIn = FLOOR;         /* expires_at - now() */
short endAge = END_CAP;      /* now() - last_tick_ended_at */
short nbIn = FLOOR;          /* not_before - now() */
bit   paused;
#ifdef MARKERS
/* holder_session and holder_session_incarnation. A key names one session of one replica (its
 * backend pid is part of it, so a reconnected marker has a new key); the model keeps whose it is
 * (0 is NULL) and whether it is that replica's latest marker session, not the key itself. The
 * incarnation is the server's (leader_server_incarnation()), counted by promotions. Only the
 * holder's own ACQUIRE and RENEW record a key, so hsRep is 0 or the holder. */
byte  hsRep;
bit   hsLatest;
byte  hsInc;
bit   hsLost;                /* ghost: it names a session that ended while its process lived */
bit   earlyTake = 1;         /* leader_leases.early_take (migration 0180), the operator's switch */
byte  inc;                   /* the live server's incarnation */
#endif

/* The standby. Streaming replication applies the primary's commits in order, so what a standby
 * has is the state after some earlier commit. The model cuts replication at any moment (the
 * standby keeps the row as it was then, aged with the clock), lets the primary commit on for up
 * to LAG seconds, and then lets it die: every commit after the cut is lost. Before a cut the
 * standby has everything and the copy below is not kept. With LAG 0 the failover loses nothing
 * (a restart, a crash restart, a synchronous standby) and no copy is kept at all. */
#ifdef LITERAL
byte  sbToken;
#else
byte  sbTokId;
short sbTokAge;
byte  sbTokSeq;
#endif
byte  sbHolder;
short sbExpIn = FLOOR;
short sbEndAge = END_CAP;
short sbNbIn = FLOOR;
bit   sbPaused;
#ifdef MARKERS
byte  sbHsRep;
bit   sbHsLatest;
byte  sbHsInc;
bit   sbHsLost;
bit   sbEarlyTake;
#endif

byte  failovers;             /* promotions so far, counted only against a bound */
byte  pauses;                /* the operator's pauses so far, likewise */
bit   cut;                   /* replication is cut: the standby is frozen */
byte  cutFor;                /* how long, up to LAG */
bit   down;                  /* the primary is gone, no standby promoted yet */
byte  downFor;               /* how long, up to FOTIME */

/* Replica state the properties and the clock read. */
#define IDLE 0
#define HOLD 1               /* the tick's work is running (unless lost), and its heartbeat */
#define ENDED 2              /* the work returned: RELEASE, retried */
#define COOLING 5            /* the same, for a lost or failed tick: its cooldown runs */
#define GONE 3               /* shut down cleanly */
#define DEAD 4               /* killed */
byte  phase[NREP + 1];
byte  tok[NREP + 1];         /* the token of the tick (an id; the value in LITERAL); 0 is none */
byte  ackAge[NREP + 1];      /* since the send of the last acknowledged ACQUIRE or RENEW */
byte  endedAgo[NREP + 1];    /* since the work returned, up to IV */
bit   lost[NREP + 1];        /* the tick was cancelled: a loss, an abandon, the marker's deadline */
#ifdef MARKERS
/* The marker, on the server and as its replica knows it (MarkerState). */
bit   mkUp[NREP + 1];        /* server: its latest marker session is connected and holds its lock */
bit   mkKnown[NREP + 1];     /* listener: that session is live as far as it has read (Live(k)) */
bit   fresh[NREP + 1];       /* listener: it has looked since the replica last ran again */
/* The tick, as it last learnt its row from ACQUIRE or RENEW: the row names no key (0), the
 * listener's latest key (1), or an older one (2: the listener reconnected since). */
byte  tkKey[NREP + 1];
/* ... and the key it names is of a server incarnation that is over (the server said so when it
 * ended the session): nothing is owed, and the gate lets its statements start
 * (MarkerState::serverEnding, mayStart). */
bit   tkOver[NREP + 1];
#define REP_PENDING 1        /* the tick saw its row's key end: RENEW at once, or stop by D + B */
#define REP_FAILED 2         /* ... and a RENEW for it failed (slow, unreachable): stop */
byte  rep[NREP + 1];
#define WIN_OPEN 1           /* a key of this replica ended less than G ago */
#define WIN_MISSED 2         /* ... and the replica was frozen at some instant of that */
#define WIN_UNHEARD 3        /* ... and it was cut off before it could read the end */
byte  win[NREP + 1];
#define RUN 0
#define FROZEN 1             /* all its threads stopped; its sockets stay open */
#define CUT 2                /* cut off from the server: its statements fail, nothing arrives */
byte  fault[NREP + 1];
byte  mkLosses;              /* markers ended while their process lived, so far */
byte  freezes;
byte  cuts;
byte  flips;
#endif

/* Ghosts for the properties. */
#if FREEZES > 0
#define OVERLAP_FLAG twoReplicasWorkNoneFrozen
#else
#define OVERLAP_FLAG twoReplicasWork
#endif
#ifdef LITERAL
byte  maxIssued;
#else
short maxAge = AGE_CAP;      /* the largest token ever issued, on any server */
byte  maxSeq;
#endif
bit   opRested = 1;          /* a second has passed since the operator's last pause */
byte  coolLeft;              /* until the last lost or failed tick's cooldown ends */
bit   tokenIssuedTwice;
bit   twoReplicasPassTheFence;
bit   pausedRoleClaimed;
bit   deadHoldersRoleNotAcquirable;
bit   interruptedTickNotDue;
bit   cooldownNotWaited;
#ifdef MARKERS
bit   liveHolderTakenEarly;
bit   OVERLAP_FLAG;
#if FREEZES > 0
bit   resumedHolderWorksOn;
#endif
bit   takenHolderStartsClaim;
bit   repairableTickCancelled;
bit   deaf[NREP + 1];        /* its window closed on its running work while it was frozen */
/* Reachability: each, when compiled in, must be found (the properties are not vacuous). */
#ifdef REACH_DEAD_TAKEN_EARLY
bit   deadHolderTakenEarly;
#endif
#ifdef REACH_REPAIRED_TICK_COMPLETES
bit   repairedTickCompletes;
bit   mended[NREP + 1];
#endif
#ifdef REACH_FROZEN_HOLDER_TAKEN
bit   frozenHolderTakenEarly;
#endif
#endif

#ifdef LITERAL
#define TOKEN token
inline normalize() { skip }
#else
#define TOKEN tokId
/* Token ids are renamed after every change, in order of first appearance (the row, the standby,
 * the replicas), so that states that differ only in the names of their tokens are one state. */
#define NEW_ID (NREP + 3)
byte  idMap[NREP + 4];       /* scratch, zero between steps */
byte  nextId;
#define RENAME(x) \
    if \
    :: x != 0 -> \
        if \
        :: idMap[x] == 0 -> idMap[x] = nextId; nextId++ \
        :: else -> skip \
        fi; \
        x = idMap[x] \
    :: else -> skip \
    fi
inline normalize()
{
    d_step {
        nextId = 1;
        RENAME(tokId); RENAME(sbTokId); RENAME(tok[1]); RENAME(tok[2]);
#if NREP >= 3
        RENAME(tok[3]);
#endif
        nextId = 0;
        do
        :: nextId < NREP + 4 -> idMap[nextId] = 0; nextId++
        :: else -> nextId = 0; break
        od
    }
}
#endif

/* leader_fence(role, t) */
#define FENCE(t) (TOKEN == (t) && holder != 0 && !paused && expIn > 0)
#define DUE (endAge >= IV && nbIn <= 0)
#define ACQUIRABLE (!paused && expIn <= 0 && DUE)
/* A claim of replica i may execute now: its work is running, and a claim sent before the abandon
 * (ackAge < ABANDON) may still be executing up to STMT later; a claim sent just before a
 * cancellation still runs, so cancellation does not close the window. */
#define CAN_CLAIM(i) (!down && phase[i] == HOLD && ackAge[i] <= ABANDON + STMT - 1)
#define PASSES(i) (CAN_CLAIM(i) && FENCE(tok[i]))
/* The tick's work runs: from its ACQUIRE until it returns or is cancelled. */
#define WORK(i) (phase[i] == HOLD && !lost[i])
#define ALIVE(i) (phase[i] != DEAD && phase[i] != GONE)

#ifdef MARKERS
/* A replica takes steps unless frozen; its statements reach the server unless it is cut off. */
#define AWAKE(i) (fault[i] != FROZEN)
#define REACHES(i) (fault[i] == RUN)

/* pg_try_advisory_xact_lock_shared(holder_session) is granted: no session holds that key. */
#define MARKER_FREE (hsRep != 0 && !(hsLatest && mkUp[hsRep]))
/* The contender saw the lock free (its watch was granted) at the key's end at the earliest, and
 * waits G: the key's window must have closed. */
#ifdef NO_GRACE
#define GRACE_OVER 1
#else
#define GRACE_OVER (win[hsRep] == 0)
#endif
#ifdef NO_INCARNATION
#define SAME_INC 1
#else
#define SAME_INC (hsInc == inc)
#endif
#define EARLY (earlyTake && !paused && expIn > 0 && DUE && SAME_INC && MARKER_FREE && GRACE_OVER)

/* The holder owes its row a repair: its work runs and the row names a key that ended, whether
 * the listener has read that end (rep) or not yet (the listener still has it live, the server
 * has ended it). */
#define NEEDS(r) (WORK(r) && (rep[r] != 0 || tkKey[r] == 1 && mkKnown[r] && !mkUp[r]))
/* ... and it will have acted before G: the repair lands or the deadline cancels the tick. Without
 * the self-protection, a holder whose repair cannot land does nothing. */
#ifdef NO_SELF_PROTECTION
#define ACTS(r) (!(rep[r] == REP_FAILED || rep[r] != 0 && (fault[r] == CUT || down)))
#else
#define ACTS(r) 1
#endif
/* Time cannot pass while a window is open, while a running replica has a repair to make that it
 * can make, while a running replica's work is due to have stopped (its abandon), or while a
 * running listener has an end of file to read or has not looked since its replica resumed (the
 * listener's thread reads at once; a later reconnect is still allowed). */
#define URGENT(r) (win[r] != 0 || fault[r] != FROZEN && \
                   (NEEDS(r) && ACTS(r) && (fault[r] == RUN || rep[r] != 0) || \
                    WORK(r) && ackAge[r] >= ABANDON + STMT || \
                    mkKnown[r] && (!fresh[r] || !mkUp[r] && fault[r] == RUN)))
#if NREP >= 3
#define TIME_MAY_PASS (!URGENT(1) && !URGENT(2) && !URGENT(3))
#else
#define TIME_MAY_PASS (!URGENT(1) && !URGENT(2))
#endif

/* The gate (Manager::markerGate): a statement of a tick whose row names a key starts only if the
 * key is the listener's live one and the listener looked within F. */
#ifdef NO_FRESH_PROOF
#define GATE_LIVE(i) (tkKey[i] == 1 && mkKnown[i])
#else
#define GATE_LIVE(i) (tkKey[i] == 1 && mkKnown[i] && fresh[i])
#endif
#define GATE(i) (tkKey[i] == 0 || GATE_LIVE(i) || tkOver[i])
/* A claim of replica i may start now: running, reaching the server, before its abandon (judged
 * before each statement, tick.cpp), through the gate. */
#define CLAIM_STARTS(i) (fault[i] == RUN && WORK(i) && ackAge[i] < ABANDON && !down && GATE(i))
/* The exception, where freezes are modelled: a replica whose window closed on its running work
 * while it was frozen (deaf), or that was frozen past its abandon (the TTL path's own freeze).
 * Without freezes the property is twoReplicasWork, with no exception; with them it is
 * twoReplicasWorkNoneFrozen. */
#if FREEZES > 0
#define EXEMPT(i) (deaf[i] || ackAge[i] > ABANDON + STMT)
#define OVERLAP(i, j) (WORK(i) && WORK(j) && !EXEMPT(i) && !EXEMPT(j))
/* An exempt replica whose row was taken runs (the clock asserts this never holds when time
 * passes: resumedHolderWorksOn). */
#define WORKS_ON(i) (fault[i] != FROZEN && WORK(i) && EXEMPT(i) && TOKEN != tok[i])
#else
#define OVERLAP(i, j) (WORK(i) && WORK(j))
#endif

/* ACQUIRE and RENEW send the listener's key while it is live and record it only when the switch
 * is on and its lock is found held; the tick learns what was recorded (RETURNING). */
inline recordMarker(i)
{
    if
    :: mkUp[i] && earlyTake -> hsRep = i; hsLatest = 1; hsInc = inc; tkKey[i] = 1
    :: else -> hsRep = 0; hsLatest = 0; hsInc = 0; tkKey[i] = 0
    fi;
    tkOver[i] = 0; hsLost = 0
}
/* The tick's work has stopped: nothing to repair, nothing owed. */
inline tickStops(i)
{
    rep[i] = 0; tkKey[i] = 0; tkOver[i] = 0; deaf[i] = 0
}
#else
#define EARLY false
#define AWAKE(i) 1
#define REACHES(i) 1
#define TIME_MAY_PASS 1
#endif

/* ACQUIRE (AcquireSql, its ON CONFLICT DO UPDATE branch: the row always exists here). */
inline acquire(i, won)
{
    if
#ifdef LITERAL
    :: ACQUIRABLE && token < LIT_TOKENS ->
        token = token + 1;                       /* holder_token + 1 */
        tokenIssuedTwice = (token <= maxIssued);
        maxIssued = MAX(maxIssued, token);
#else
    :: ACQUIRABLE || EARLY ->
#ifdef MARKERS
        /* Early, a live holder may be taken only for a marker that ended while its process
         * lived and the server stayed up. A restart or a promotion ends every marker, and says
         * nothing of the processes. */
        liveHolderTakenEarly = (expIn > 0 && ALIVE(holder) && !hsLost);
        assert(!liveHolderTakenEarly);
#ifdef REACH_DEAD_TAKEN_EARLY
        deadHolderTakenEarly = (expIn > 0 && phase[holder] == DEAD);
        assert(!deadHolderTakenEarly);
#endif
#ifdef REACH_FROZEN_HOLDER_TAKEN
        frozenHolderTakenEarly = (expIn > 0 && deaf[holder] && fault[holder] == FROZEN);
        assert(!frozenHolderTakenEarly);
#endif
#endif
        /* greatest(holder_token + 1, epoch ms of now()): now() wins unless the row's token was
         * issued at this instant or later (a server clock behind the one that issued it). */
        if
        :: tokAge > 0 -> tokAge = 0; tokSeq = 0
        :: else -> tokSeq++
        fi;
        assert(tokSeq < SEQMAX);
        tokenIssuedTwice = !(tokAge < maxAge || tokAge == maxAge && tokSeq > maxSeq);
        maxAge = tokAge; maxSeq = tokSeq;
        tokId = NEW_ID;       /* the replica that won takes it; normalize() renames it */
#endif
#ifndef NO_TOKEN_CHECK
        assert(!tokenIssuedTwice);
#endif
        cooldownNotWaited = (coolLeft != 0);
        assert(!cooldownNotWaited);
        holder = i;
        expIn = TTL;
#ifdef MARKERS
        recordMarker(i);
#endif
        won = 1
    :: else -> won = 0
    fi
}

/* RENEW (RenewSql): no row is a definite loss. */
inline renew(i, t, renewed)
{
    if
#ifdef LITERAL
    :: TOKEN == t && holder != 0 ->
#else
    :: TOKEN == t && holder == i ->
#endif
        expIn = TTL;
#ifdef MARKERS
        recordMarker(i);
#endif
        renewed = 1
    :: else -> renewed = 0
    fi
}

/* RELEASE (ReleaseSql). sinceEnd is how long after the work returned this attempt was sent, so
 * a retried RELEASE ends the cooldown where the first would have. */
#define COMPLETED 1
#define INTERRUPTED 2
#define LOST 4
/* A panicked tick waits the interval, a lost one min(interval, 60 s): with the model's interval
 * (2 s) the two CASE branches set the same not_before, so the model keeps them one outcome. */
#if IV <= LOSTCAP
#define FAILED LOST
#else
#define FAILED 3
#endif
/* Manager's cooldownOf: a panic waits the interval, a loss min(interval, 60 s), else nothing. */
#define COOLDOWN(o) ((o) == FAILED -> IV : ((o) == LOST -> MIN(IV, LOSTCAP) : 0))
inline release(i, t, outcome, sinceEnd, matched)
{
    if
#ifdef LITERAL
    :: TOKEN == t && holder != 0 ->
#else
    :: TOKEN == t && holder == i ->
#endif
        holder = 0;
        expIn = FLOOR;
#ifdef MARKERS
        hsRep = 0; hsLatest = 0; hsInc = 0; hsLost = 0;
#endif
        if
        :: outcome == COMPLETED -> endAge = 0
        :: else -> skip
        fi;
        if
        :: outcome == FAILED || outcome == LOST -> nbIn = MAX(0, COOLDOWN(outcome) - (sinceEnd))
        :: else -> nbIn = FLOOR
        fi;
        matched = 1
    :: else -> matched = 0
    fi
}

/* One second passes for everyone. */
#define AGE_TOKEN(a) a = MIN(a + 1, AGE_CAP)
active proctype clock()
{
    byte r;
    do
    :: d_step {
        /* A cut primary dies within LAG: time does not pass it. */
        !(cut && cutFor >= LAG) && TIME_MAY_PASS ->
        expIn = MAX(expIn - 1, FLOOR); endAge = MIN(endAge + 1, END_CAP);
        nbIn = MAX(nbIn - 1, FLOOR);
#ifndef LITERAL
        AGE_TOKEN(tokAge); AGE_TOKEN(maxAge);
#endif
        if
        :: cut ->
            sbExpIn = MAX(sbExpIn - 1, FLOOR); sbEndAge = MIN(sbEndAge + 1, END_CAP);
            sbNbIn = MAX(sbNbIn - 1, FLOOR);
#ifndef LITERAL
            AGE_TOKEN(sbTokAge);
#endif
            cutFor = MIN(cutFor + 1, LAG)
        :: down -> downFor = MIN(downFor + 1, FOTIME)
        :: else -> skip
        fi;
        coolLeft = MAX(coolLeft - 1, 0);
        opRested = 1;
#if defined(MARKERS) && FREEZES > 0
        /* The exception's bound: an exempt holder whose row was taken works on only while it
         * is frozen; once it runs again, its work stops before time passes (its repair finds the
         * row taken, its deadline or its abandon passes). */
        resumedHolderWorksOn = (WORKS_ON(1) || WORKS_ON(2)
#if NREP >= 3
                                || WORKS_ON(3)
#endif
                               );
        assert(!resumedHolderWorksOn);
#endif
        r = 1;
        do
        :: r <= NREP ->
            if
            :: phase[r] == HOLD || phase[r] == ENDED || phase[r] == COOLING ->
                ackAge[r] = MIN(ackAge[r] + 1, TTL);
                if
                :: phase[r] == COOLING -> endedAgo[r] = MIN(endedAgo[r] + 1, IV)
                :: else -> skip
                fi
            :: else -> skip
            fi;
            r++
        :: else -> r = 0; break
        od }
    od
}

/* One replica: RoleRunner's loop around Manager::lead. It may be killed at any point, and shut
 * down (SIGTERM) during a tick. With MARKERS, a frozen replica takes no step (it may still be
 * killed), and one cut off sends no statement that arrives. */
proctype replica(byte i)
{
    byte outcome;
    bit ok;

idle:
    do
    :: atomic {                                           /* ACQUIRE */
        AWAKE(i) && !down && REACHES(i) -> acquire(i, ok);
        if
        :: ok -> tok[i] = TOKEN; normalize(); ackAge[i] = 0; phase[i] = HOLD; ok = 0;
           goto hold
        :: else -> skip
        fi }
    /* A failed ACQUIRE changes nothing and is retried: the same as one not yet sent. */
    :: atomic { phase[i] = DEAD; goto dead }
    od;

hold:
    /* The work and the heartbeat thread, interleaved. */
    do
    :: atomic {                                           /* the heartbeat wakes */
        AWAKE(i) && !lost[i] && (ackAge[i] >= HB
#if defined(MARKERS) && !defined(NO_REPAIR)
                                 /* the repair: a RENEW at once when the row's key ended, and
                                  * again while it fails (RepairRetry) */
                                 || rep[i] != 0
#endif
                                ) ->
        if
        :: ackAge[i] >= ABANDON -> lost[i] = 1            /* heartbeat_timeout, before sending */
        :: else ->
            if
            :: !down && REACHES(i) ->                     /* RENEW */
                renew(i, tok[i], ok);
                if
                :: ok -> ackAge[i] = 0                    /* acknowledged as of its send */
#ifdef MARKERS
#ifdef REACH_REPAIRED_TICK_COMPLETES
                    ; mended[i] = (mended[i] || rep[i] != 0)
#endif
                    /* It recorded the live key or none: the row names no ended key. */
                    ; rep[i] = 0; deaf[i] = 0
#endif
                :: else -> lost[i] = 1                    /* taken over, released or paused */
                fi;
                ok = 0
            :: true ->                                    /* a missed beat, retried */
#ifdef MARKERS
                if
                :: rep[i] != 0 -> rep[i] = REP_FAILED     /* the repair did not land */
                :: else -> skip
                fi
#else
                skip
#endif
            fi
        fi;
#ifdef MARKERS
        if
        :: lost[i] -> tickStops(i)
        :: else -> skip
        fi
#else
        skip
#endif
        }
#if defined(MARKERS) && !defined(NO_SELF_PROTECTION)
    :: atomic {                                           /* watchRepairs: D + B has passed */
        /* Not repaired in time: the tick stops ("marker_lost"), its statement in flight
         * cancelled, before any contender's grace ends. Without the repair, the deadline is all
         * that is left, and it passes with nothing having landed. */
#ifdef NO_REPAIR
        AWAKE(i) && rep[i] != 0 ->
#else
        AWAKE(i) && rep[i] != 0 && (rep[i] == REP_FAILED || !REACHES(i) || down) ->
#endif
        /* A holder that could have repaired (it reaches a live server and no attempt failed)
         * must not lose its tick to its marker's end. */
        repairableTickCancelled = (rep[i] == REP_PENDING && REACHES(i) && !down);
        assert(!repairableTickCancelled);
        lost[i] = 1; tickStops(i) }
#endif
    :: atomic {                                           /* shutdown: the tick is interrupted */
        AWAKE(i) && !lost[i] -> outcome = INTERRUPTED; phase[i] = ENDED;
#ifdef MARKERS
        tickStops(i);
#endif
        goto releasing }
    :: atomic {                                           /* the work returns, or panics */
        AWAKE(i) ->
        if
        :: outcome = (lost[i] -> LOST : COMPLETED)
        :: outcome = (lost[i] -> LOST : FAILED)
        fi;
        phase[i] = (outcome == COMPLETED -> ENDED : COOLING); lost[i] = 0;
#ifdef MARKERS
        tickStops(i);
#endif
        goto releasing }
    :: atomic { phase[i] = DEAD; lost[i] = 0; goto dead }
    od;

releasing:
    do
    :: atomic {                                           /* RELEASE */
        AWAKE(i) && !down && REACHES(i) ->
        release(i, tok[i], outcome, endedAgo[i], ok);
        if
        :: ok && outcome == INTERRUPTED ->
            interruptedTickNotDue = !DUE;
            assert(!interruptedTickNotDue)
        :: ok && (outcome == FAILED || outcome == LOST) ->
            coolLeft = MAX(0, COOLDOWN(outcome) - endedAgo[i])
        :: else -> skip
        fi;
#ifdef REACH_REPAIRED_TICK_COMPLETES
        repairedTickCompletes = (ok && outcome == COMPLETED && mended[i]);
        assert(!repairedTickCompletes);
#endif
        ok = 0;
        goto released }
    :: atomic {                                           /* RELEASE fails */
        /* Retried unless shutting down, until the cooldown would have ended anyway (for a
         * completed tick: until the lease has expired). */
        AWAKE(i) &&
        (outcome == INTERRUPTED || endedAgo[i] >= COOLDOWN(outcome) && ackAge[i] >= TTL) ->
        goto released }
    :: atomic { phase[i] = DEAD; outcome = 0; goto dead }
    od;

released:
    atomic {
        AWAKE(i) ->
        if
        :: outcome == INTERRUPTED -> phase[i] = GONE
        :: else -> phase[i] = IDLE
        fi;
        tok[i] = 0; normalize(); ackAge[i] = 0; endedAgo[i] = 0;
#ifdef REACH_REPAIRED_TICK_COMPLETES
        mended[i] = 0;
#endif
        if
        :: outcome == INTERRUPTED -> outcome = 0; goto gone
        :: else -> outcome = 0; goto idle
        fi
    };

gone:
dead:
    /* The process has ended: the kernel closes its sockets and Postgres ends its sessions, the
     * marker's among them, and with it the marker's lock (a moment later: until then ACQUIRE
     * finds the lock held and waits for the expiry, as before). A dead replica's work does not
     * run, so the contender's grace, which only delays its take, is left out here. */
    atomic {
        tok[i] = 0; normalize(); ackAge[i] = 0; endedAgo[i] = 0;
#ifdef MARKERS
        mkUp[i] = 0; mkKnown[i] = 0; fresh[i] = 0; fault[i] = RUN; tickStops(i);
#endif
#ifdef REACH_REPAIRED_TICK_COMPLETES
        mended[i] = 0
#endif
    }
}

/* The operator: leader_pause, later leader_unpause, again and again, while the database is up;
 * at most one pause a second, as a person at a psql prompt (the bound keeps the tokens one
 * second can issue finite). With MARKERS, also UPDATE leader_leases SET early_take, either way. */
active proctype operator()
{
    do
    :: atomic {
        !down && opRested && pauses < PAUSES ->
        if
        :: !paused ->       /* SET paused_at = now(), holder_id = NULL, expires_at = NULL ... */
            paused = 1; holder = 0; expIn = FLOOR
        :: else -> skip     /* already paused (a lost write may have unpaused it, or not) */
        fi;
        opRested = 0; pauses = (PAUSES < 255 -> pauses + 1 : 0) }
        atomic {
        !down ->
        if
        :: paused -> paused = 0    /* leaves last_tick_ended_at and not_before alone */
        :: else -> skip
        fi }
#ifdef MARKERS
    :: atomic { !down && flips < FLIPS -> earlyTake = 1 - earlyTake; flips++ }
#endif
    od
}

/* A failover: replication is cut (the standby keeps the row as it is), the primary commits on
 * for up to LAG and dies, and at least FOTIME after that the standby is promoted with what it
 * had; now() moves by the two clocks' difference, at most SKEW either way. A cut at once followed
 * by the death is a failover that loses nothing. From the death on, no statement executes and
 * the old primary's row can never be read again, so the row takes the standby's state (aging
 * with the clock) at once; the promotion moves the clock. With LAG 0 the death is one step and
 * the row stays: a restart, a crash restart, or a synchronous standby's promotion. */
#define SHIFT_REMAINING(x, d) x = MAX(x - (d), FLOOR)
#define SHIFT_AGE(x, d, cap) x = MIN(MAX(x + (d), -SHIFT), cap)
#ifdef MARKERS
/* Every session ends with the old server, the markers' too; their locks are gone. The server
 * says so on each (FATAL 57P01..03), and the listener's reconnect is refused or finds another
 * incarnation (WakeListener::sessionEnded): its key is one of an incarnation that is over
 * (MarkerState::serverEnding), on which no ACQUIRE can take a row early, so a tick whose row names
 * it owes nothing (repairBy: none), its gate lets its statements start, and it keeps the TTL
 * rules. What a tick owes for a key that had ended before (read, or named from before a
 * reconnect) stands. (A holder that reads only an end of file repairs, cannot reach the server
 * and cancels: a stop the model leaves out, as it only ends work sooner.) With
 * STALE_END_REPAIRED, the amendment proposed for what markers-gaps finds: a listener that has not
 * looked since its replica was stopped cannot tell whether its key ended before the server did,
 * and the row was taken early meanwhile, so the tick owes the repair (the server being down,
 * the deadline then stops it). */
#ifdef STALE_END_REPAIRED
#define STALE_END(r) (!fresh[r] && WORK(r))
#else
#define STALE_END(r) 0
#endif
#define SERVER_ENDS(r) \
    if \
    :: mkKnown[r] && tkKey[r] == 1 && STALE_END(r) -> rep[r] = REP_PENDING \
    :: mkKnown[r] && tkKey[r] == 1 && !STALE_END(r) -> tkOver[r] = 1 \
    :: else -> skip \
    fi; \
    mkUp[r] = 0; mkKnown[r] = 0; fresh[r] = 0
#if NREP >= 3
#define END_MARKERS SERVER_ENDS(1); SERVER_ENDS(2); SERVER_ENDS(3)
#else
#define END_MARKERS SERVER_ENDS(1); SERVER_ENDS(2)
#endif
#endif
active proctype failover()
{
    short d;
    do
#if LAG == 0
    :: atomic {
        !down && failovers < FAILOVERS ->
#ifdef MARKERS
        END_MARKERS;
#endif
        /* The cooldown ghost speaks of one server's clock; it is not claimed across a failover. */
        coolLeft = 0;
        down = 1; downFor = 0 }
#else
    :: atomic {
        !cut && !down && failovers < FAILOVERS ->
#ifdef LITERAL
        sbToken = token;
#else
        sbTokId = tokId; sbTokAge = tokAge; sbTokSeq = tokSeq;
#endif
        sbHolder = holder; sbExpIn = expIn; sbEndAge = endAge; sbNbIn = nbIn; sbPaused = paused;
#ifdef MARKERS
        sbHsRep = hsRep; sbHsLatest = hsLatest; sbHsInc = hsInc; sbHsLost = hsLost;
        sbEarlyTake = earlyTake;
#endif
        cut = 1; cutFor = 0; normalize() }
    :: atomic {
        cut ->
#ifdef LITERAL
        token = sbToken; sbToken = 0;
#else
        tokId = sbTokId; tokSeq = sbTokSeq; tokAge = sbTokAge;
        sbTokId = 0; sbTokAge = 0; sbTokSeq = 0;
#endif
        holder = sbHolder; paused = sbPaused; expIn = sbExpIn; endAge = sbEndAge; nbIn = sbNbIn;
        sbHolder = 0; sbExpIn = FLOOR; sbEndAge = END_CAP; sbNbIn = FLOOR; sbPaused = 0;
#ifdef MARKERS
        hsRep = sbHsRep; hsLatest = sbHsLatest; hsInc = sbHsInc; hsLost = sbHsLost;
        earlyTake = sbEarlyTake;
        sbHsRep = 0; sbHsLatest = 0; sbHsInc = 0; sbHsLost = 0; sbEarlyTake = 0;
        END_MARKERS;
#endif
        /* The cooldown ghost speaks of one server's clock; it is not claimed across a failover,
         * which may have lost the RELEASE that set it. */
        coolLeft = 0;
        cut = 0; cutFor = 0; down = 1; downFor = 0;
        normalize() }
#endif
    :: atomic {
        down && downFor >= FOTIME ->
        if
        :: d = -SKEW
        :: d = 0
        :: d = SKEW
        fi;
#ifndef LITERAL
        SHIFT_AGE(tokAge, d, AGE_CAP); SHIFT_AGE(maxAge, d, AGE_CAP);
#endif
        SHIFT_REMAINING(expIn, d); SHIFT_AGE(endAge, d, END_CAP); SHIFT_REMAINING(nbIn, d);
#ifdef MARKERS
        inc++;             /* a new server's life: another postmaster start */
#endif
        down = 0; downFor = 0; d = 0; failovers = (FAILOVERS < 255 -> failovers + 1 : 0) }
    od
}

#ifdef MARKERS
/* The markers' sessions and the faults, beside their processes.
 *
 * LOSE: a marker ends while its process lives (pg_terminate_backend, an idle cut, a reset
 * socket): its lock is free at once, and every contender watching it starts its grace. A replica
 * cut off from the server hears nothing of it; the protocol assumes that such a session ends only
 * by the server's keepalives, 12 s into the silence, after the holder's abandon (6 + 2 s): so here
 * only once its work has stopped, unless CUT_TERMINATION. */
#ifdef CUT_TERMINATION
#define ENDS_WHILE_CUT(r) 1
#else
#define ENDS_WHILE_CUT(r) (!WORK(r))
#endif
#define LOSE(r) \
    :: atomic { \
        !down && mkLosses < MARKER_LOSSES && mkUp[r] && ALIVE(r) && \
        (fault[r] != CUT || ENDS_WHILE_CUT(r)) -> \
        mkUp[r] = 0; mkLosses++; \
        if \
        :: hsRep == r && hsLatest -> hsLost = 1 \
        :: else -> skip \
        fi; \
        if \
        :: sbHsRep == r && sbHsLatest -> sbHsLost = 1 \
        :: else -> skip \
        fi; \
        if \
        :: fault[r] == RUN -> win[r] = WIN_OPEN \
        :: fault[r] == FROZEN -> win[r] = WIN_MISSED \
        :: else -> win[r] = WIN_UNHEARD \
        fi }
/* LISTEN: the listener looks at its socket (WakeListener): an end of file makes the key ended
 * (MarkerState::ended), and a running tick whose row names it owes a repair; finding none, its
 * look is fresh (MarkerState::alive). A replica cut off reads nothing. */
#define LISTEN(r) \
    :: atomic { \
        fault[r] != FROZEN && mkKnown[r] && (!fresh[r] || !mkUp[r] && fault[r] == RUN) -> \
        if \
        :: !mkUp[r] && fault[r] == RUN -> \
            mkKnown[r] = 0; fresh[r] = 0; \
            if \
            :: WORK(r) && tkKey[r] != 0 && rep[r] == 0 -> rep[r] = REP_PENDING \
            :: else -> skip \
            fi \
        :: else -> fresh[r] = 1 \
        fi }
/* RECONNECT: a live process whose marker is gone connects a new one, under a new key, at any
 * later moment (WakeListener reconnects at once; the model allows any delay), or never (a
 * replica through a pooler, or with --early-take off). The tick's row now names an older key. */
#define RECONNECT(r) \
    :: atomic { \
        !down && fault[r] == RUN && !mkKnown[r] && ALIVE(r) -> \
        mkUp[r] = 1; mkKnown[r] = 1; fresh[r] = 1; \
        if \
        :: tkKey[r] == 1 -> tkKey[r] = 2 \
        :: else -> skip \
        fi; \
        if \
        :: hsRep == r -> hsLatest = 0 \
        :: else -> skip \
        fi; \
        if \
        :: sbHsRep == r -> sbHsLatest = 0 \
        :: else -> skip \
        fi }
/* EXPIRE: G has passed since the key's end. Not before a running holder that owes a repair has
 * made it or stopped; whatever it owes if it was frozen at some instant of the window (it is then
 * deaf: the exception), or, with CUT_TERMINATION, cut off before it could read the end. */
#define EXPIRE(r) \
    :: atomic { \
        win[r] != 0 && (win[r] != WIN_OPEN || !(NEEDS(r) && ACTS(r))) -> \
        deaf[r] = (deaf[r] || win[r] == WIN_MISSED && NEEDS(r)); \
        win[r] = 0 }
/* FREEZE and RESUME (SIGSTOP, a VM pause): the listener's last look goes stale (a freeze here is
 * longer than F). CUT and HEAL: the replica's network; a cut does not start while an end of its
 * marker is on its way to it, unless CUT_TERMINATION (the same as a termination in the cut). */
#ifdef CUT_TERMINATION
#define CUT_MAY_START(r) 1
#else
#define CUT_MAY_START(r) (!(mkKnown[r] && !mkUp[r]))
#endif
#define FAULTS(r) \
    :: atomic { \
        fault[r] == RUN && freezes < FREEZES && ALIVE(r) -> \
        fault[r] = FROZEN; freezes++; fresh[r] = 0; \
        if \
        :: win[r] == WIN_OPEN || win[r] == WIN_UNHEARD -> win[r] = WIN_MISSED \
        :: else -> skip \
        fi } \
    :: atomic { fault[r] == FROZEN -> fault[r] = RUN } \
    :: atomic { \
        fault[r] == RUN && cuts < CUTS && ALIVE(r) && CUT_MAY_START(r) -> \
        fault[r] = CUT; cuts++; \
        if \
        :: win[r] == WIN_OPEN && mkKnown[r] && !mkUp[r] -> win[r] = WIN_UNHEARD \
        :: else -> skip \
        fi } \
    :: atomic { fault[r] == CUT -> fault[r] = RUN }
active proctype markers()
{
    do
    LOSE(1)
    LOSE(2)
    LISTEN(1)
    LISTEN(2)
    RECONNECT(1)
    RECONNECT(2)
    EXPIRE(1)
    EXPIRE(2)
    FAULTS(1)
    FAULTS(2)
#if NREP >= 3
    LOSE(3)
    LISTEN(3)
    RECONNECT(3)
    EXPIRE(3)
    FAULTS(3)
#endif
    od
}

/* twoReplicasWork (twoReplicasWorkNoneFrozen with freezes): at no instant does the work of two
 * replicas run (from ACQUIRE until it returns or is cancelled), neither of them exempt (EXEMPT
 * above). takenHolderStartsClaim: no replica may start a claim of a tick whose row has since been
 * taken (another token issued); with the gate, that holds of the exempt ones as well, once they
 * run again. */
#if NREP >= 3
#define ANY_OVERLAP (OVERLAP(1, 2) || OVERLAP(1, 3) || OVERLAP(2, 3))
#define STALE_CLAIM (CLAIM_STARTS(1) && TOKEN != tok[1] || CLAIM_STARTS(2) && TOKEN != tok[2] || \
                     CLAIM_STARTS(3) && TOKEN != tok[3])
#else
#define ANY_OVERLAP OVERLAP(1, 2)
#define STALE_CLAIM (CLAIM_STARTS(1) && TOKEN != tok[1] || CLAIM_STARTS(2) && TOKEN != tok[2])
#endif
/* Only where no commit is lost: a lossy failover may lose the holder's own ACQUIRE, and its claims
 * are then refused by the fence (twoReplicasPassTheFence), taken or not. */
#if LAG > 0
#undef STALE_CLAIM
#define STALE_CLAIM 0
#endif
active proctype works()
{
    atomic {
        (ANY_OVERLAP || STALE_CLAIM) ->
        if
        :: ANY_OVERLAP -> OVERLAP_FLAG = 1; assert(!OVERLAP_FLAG)
        :: else -> takenHolderStartsClaim = 1; assert(!takenHolderStartsClaim)
        fi
    }
}
#endif

/* The invariants, checked in every state: a monitor can only step when one is broken. */
active proctype fences()
{
    atomic {
        (PASSES(1) && PASSES(2)
#if NREP >= 3
         || PASSES(1) && PASSES(3) || PASSES(2) && PASSES(3)
#endif
        ) -> twoReplicasPassTheFence = 1;
        assert(!twoReplicasPassTheFence)
    }
}

active proctype pausedClaims()
{
    atomic {
        (paused && (PASSES(1) || PASSES(2)
#if NREP >= 3
                    || PASSES(3)
#endif
        )) -> pausedRoleClaimed = 1;
        assert(!pausedRoleClaimed)
    }
}

/* A role whose holder died is acquirable once now() reaches the expiry its last heartbeat set
 * (that RENEW's now() + TTL), unless it is paused: no cooldown or interval stands in the way. */
active proctype deadHolder()
{
    atomic {
        (holder != 0 && phase[holder] == DEAD && !down && !paused && expIn <= 0 && !ACQUIRABLE)
        -> deadHoldersRoleNotAcquirable = 1;
        assert(!deadHoldersRoleNotAcquirable)
    }
}

#ifdef LIVENESS
/* Under weak fairness (pan -a -f): a role whose holder died is taken by a live replica, paused,
 * or left by the failover to another holder, unless no replica is left. */
#define NONE_LEFT ((phase[1] == DEAD || phase[1] == GONE) && (phase[2] == DEAD || phase[2] == GONE))
#define DEAD_HOLDS (holder != 0 && phase[holder] == DEAD)
ltl deadHoldersRoleIsTaken { [] (DEAD_HOLDS -> <> (!DEAD_HOLDS || NONE_LEFT)) }
#endif

init
{
    atomic {
        byte i = 1;
        do
        :: i <= NREP -> run replica(i); i++
        :: else -> i = 0; break
        od
    }
}
