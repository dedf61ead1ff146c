/*
 * ADR-114's lease protocol for one role, model-checked with Spin (issue 19).
 *
 * One row of leader_leases, NREP replicas running Manager::lead in a loop, each of which may die
 * at any point or be shut down during a tick; an operator who pauses and unpauses (PAUSES times);
 * and FAILOVERS promotions of an asynchronous standby that lost every commit of the last LAG
 * seconds or less. Every statement is one atomic step on the database clock:
 *
 *   ACQUIRE, RENEW, RELEASE   engine/lease/statements.cpp (AcquireSql, RenewSql, ReleaseSql)
 *   PAUSE, UNPAUSE            migrations/lease/0174_leader_leases.up.sql (leader_pause/unpause)
 *   the fence                 leader_fence() in the same migration: the guard of every claim
 *   not_before                migrations/lease/0175_not_before.up.sql
 *   heartbeat, abandon,       engine/lease/manager.cpp (Manager::lead, heartbeat, releaseTick)
 *   outcomes, RELEASE retry   and engine/lease/tick.cpp (the abandon judged before a statement)
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
 *   -DMARKERS      the takeover at process death (migration 0179): each replica's marker session
 *                  holds an advisory lock for the life of its process; ACQUIRE and RENEW record
 *                  its key and the server's incarnation when they find it held, and ACQUIRE takes
 *                  a held, unexpired row early when that lock is free on the same incarnation. A
 *                  marker may also end while its process lives (pg_terminate_backend, a reset
 *                  socket), MARKER_LOSSES times, and is then reconnected under a new key. Not with
 *                  LITERAL: the ADR's statements have no marker
 *   -DNO_INCARNATION  with MARKERS, leaves the incarnation test out of ACQUIRE's early take, so
 *                  that the search finds the live holder a restart or a promotion would hand over
 *
 * Time. The unit is one second, so the constants keep their ratios exactly: TTL 10, heartbeat 3,
 * abandon 6, statement timeout 2 (engine/lease/constants.h). A clock process ticks at any moment,
 * so a replica may be arbitrarily slow between two of its steps (a freeze, a GC pause, a slow
 * host). The clock is unbounded: the state keeps no absolute time, only how far each timestamp is
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
 * timeout) is left out. The defaults below are the bounds tests/model/run-spin.sh checks; what
 * they leave out is in docs/lease-runtime.md.
 *
 * Properties, each an assertion on a ghost flag named for what went wrong: tokenIssuedTwice,
 * twoReplicasPassTheFence, pausedRoleClaimed, deadHoldersRoleNotAcquirable,
 * interruptedTickNotDue, cooldownNotWaited; with -DMARKERS, liveHolderTakenEarly; with
 * -DLIVENESS, the LTL property deadHoldersRoleIsTaken, for pan -a -f (weak fairness).
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
#define MARKER_LOSSES 1      /* markers ended while their process lives, in a run */
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
 * incarnation is the server's (leader_server_incarnation()), counted by promotions. */
byte  hsRep;
bit   hsLatest;
byte  hsInc;
bit   hsLost;                /* ghost: it names a session that ended while its process lived */
byte  inc;                   /* the live server's incarnation */
#endif

/* The standby. Streaming replication applies the primary's commits in order, so what a standby
 * has is the state after some earlier commit. The model cuts replication at any moment (the
 * standby keeps the row as it was then, aged with the clock), lets the primary commit on for up
 * to LAG seconds, and then lets it die: every commit after the cut is lost. Before a cut the
 * standby has everything and the copy below is not kept. */
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
#endif

byte  failovers;             /* promotions so far, counted only against a bound */
byte  pauses;                /* the operator's pauses so far, likewise */
bit   cut;                   /* replication is cut: the standby is frozen */
byte  cutFor;                /* how long, up to LAG */
bit   down;                  /* the primary is gone, no standby promoted yet */
byte  downFor;               /* how long, up to FOTIME */

/* Replica state the properties and the clock read. */
#define IDLE 0
#define HOLD 1               /* the tick's work is running, and its heartbeat */
#define ENDED 2              /* the work returned: RELEASE, retried */
#define COOLING 5            /* the same, for a lost or failed tick: its cooldown runs */
#define GONE 3               /* shut down cleanly */
#define DEAD 4               /* killed */
byte  phase[NREP + 1];
byte  tok[NREP + 1];         /* the token of the tick (an id; the value in LITERAL); 0 is none */
byte  ackAge[NREP + 1];      /* since the send of the last acknowledged ACQUIRE or RENEW */
byte  endedAgo[NREP + 1];    /* since the work returned, up to IV */
#ifdef MARKERS
bit   mkUp[NREP + 1];        /* its latest marker session is connected and holds its lock */
byte  mkLosses;              /* markers ended while their process lived, so far */
#endif

/* Ghosts for the properties. */
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

#ifdef MARKERS
/* pg_try_advisory_xact_lock_shared(holder_session) is granted: no session holds that key. */
#define MARKER_FREE (hsRep != 0 && !(hsLatest && mkUp[hsRep]))
#ifdef NO_INCARNATION
#define EARLY (!paused && expIn > 0 && DUE && MARKER_FREE)
#else
#define EARLY (!paused && expIn > 0 && DUE && hsInc == inc && MARKER_FREE)
#endif
/* ACQUIRE and RENEW record the caller's marker key only when its lock is found held. */
inline recordMarker(i)
{
    if
    :: mkUp[i] -> hsRep = i; hsLatest = 1; hsInc = inc
    :: else -> hsRep = 0; hsLatest = 0; hsInc = 0
    fi;
    hsLost = 0
}
#else
#define EARLY false
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
         * lived and the server stayed up; its next RENEW or claim then finds the token moved. A
         * restart or a promotion ends every marker, and says nothing of the processes. */
        liveHolderTakenEarly = (expIn > 0 && phase[holder] != DEAD && phase[holder] != GONE
                                && !hsLost);
        assert(!liveHolderTakenEarly);
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
        !(cut && cutFor >= LAG) ->
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
 * down (SIGTERM) during a tick. */
proctype replica(byte i)
{
    byte cause;          /* the tick was cancelled by a loss (LOST) or not (0) */
    byte outcome;
    bit ok;

idle:
    do
    :: atomic {                                           /* ACQUIRE */
        !down -> acquire(i, ok);
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
        cause == 0 && ackAge[i] >= HB ->
        if
        :: ackAge[i] >= ABANDON -> cause = LOST           /* heartbeat_timeout, before sending */
        :: else ->
            if
            :: !down ->                                   /* RENEW */
                renew(i, tok[i], ok);
                if
                :: ok -> ackAge[i] = 0                    /* acknowledged as of its send */
                :: else -> cause = LOST                   /* taken over, released or paused */
                fi;
                ok = 0
            :: true -> skip                               /* a missed beat, retried */
            fi
        fi }
    :: atomic {                                           /* shutdown: the tick is interrupted */
        cause == 0 -> outcome = INTERRUPTED; phase[i] = ENDED; goto releasing }
    :: atomic {                                           /* the work returns, or panics */
        if
        :: outcome = (cause == LOST -> LOST : COMPLETED)
        :: outcome = (cause == LOST -> LOST : FAILED)
        fi;
        phase[i] = (outcome == COMPLETED -> ENDED : COOLING); cause = 0; goto releasing }
    :: atomic { phase[i] = DEAD; cause = 0; goto dead }
    od;

releasing:
    do
    :: atomic {                                           /* RELEASE */
        !down ->
        release(i, tok[i], outcome, endedAgo[i], ok);
        if
        :: ok && outcome == INTERRUPTED ->
            interruptedTickNotDue = !DUE;
            assert(!interruptedTickNotDue)
        :: ok && (outcome == FAILED || outcome == LOST) ->
            coolLeft = MAX(0, COOLDOWN(outcome) - endedAgo[i])
        :: else -> skip
        fi;
        ok = 0;
        goto released }
    :: atomic {                                           /* RELEASE fails */
        /* Retried unless shutting down, until the cooldown would have ended anyway (for a
         * completed tick: until the lease has expired). */
        (outcome == INTERRUPTED || endedAgo[i] >= COOLDOWN(outcome) && ackAge[i] >= TTL) ->
        goto released }
    :: atomic { phase[i] = DEAD; outcome = 0; goto dead }
    od;

released:
    atomic {
        if
        :: outcome == INTERRUPTED -> phase[i] = GONE
        :: else -> phase[i] = IDLE
        fi;
        tok[i] = 0; normalize(); ackAge[i] = 0; endedAgo[i] = 0;
        if
        :: outcome == INTERRUPTED -> outcome = 0; goto gone
        :: else -> outcome = 0; goto idle
        fi
    };

gone:
dead:
    /* The process has ended: the kernel closes its sockets and Postgres ends its sessions, the
     * marker's among them, and with it the marker's lock (a moment later: until then ACQUIRE
     * finds the lock held and waits for the expiry, as before). */
    atomic {
        tok[i] = 0; normalize(); ackAge[i] = 0; endedAgo[i] = 0;
#ifdef MARKERS
        mkUp[i] = 0
#endif
    }
}

/* The operator: leader_pause, later leader_unpause, again and again, while the database is up;
 * at most one pause a second, as a person at a psql prompt (the bound keeps the tokens one
 * second can issue finite). */
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
    od
}

/* A failover: replication is cut (the standby keeps the row as it is), the primary commits on
 * for up to LAG and dies, and at least FOTIME after that the standby is promoted with what it
 * had; now() moves by the two clocks' difference, at most SKEW either way. A cut at once followed
 * by the death is a failover that loses nothing. From the death on, no statement executes and
 * the old primary's row can never be read again, so the row takes the standby's state (aging
 * with the clock) at once; the promotion moves the clock. */
#define SHIFT_REMAINING(x, d) x = MAX(x - (d), FLOOR)
#define SHIFT_AGE(x, d, cap) x = MIN(MAX(x + (d), -SHIFT), cap)
active proctype failover()
{
    short d;
    do
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
        /* Every session ends with the old primary, the markers' too; their locks are gone. */
        hsRep = sbHsRep; hsLatest = sbHsLatest; hsInc = sbHsInc; hsLost = sbHsLost;
        sbHsRep = 0; sbHsLatest = 0; sbHsInc = 0; sbHsLost = 0;
        mkUp[1] = 0; mkUp[2] = 0;
#if NREP >= 3
        mkUp[3] = 0;
#endif
#endif
        /* The cooldown ghost speaks of one server's clock; it is not claimed across a failover,
         * which may have lost the RELEASE that set it. */
        coolLeft = 0;
        cut = 0; cutFor = 0; down = 1; downFor = 0;
        normalize() }
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
/* The markers' sessions, beside their processes: one may end while its process lives (the
 * listener's backend terminated, its socket reset), and a live process whose marker is gone
 * connects a new one, under a new key, at any later moment (WakeListener reconnects at once; the
 * model allows any delay). A replica that never connects one is a replica through a pooler. */
#define LOSE(r) \
    :: atomic { \
        !down && mkLosses < MARKER_LOSSES && mkUp[r] && phase[r] != DEAD && phase[r] != GONE -> \
        mkUp[r] = 0; mkLosses++; \
        if \
        :: hsRep == r && hsLatest -> hsLost = 1 \
        :: else -> skip \
        fi; \
        if \
        :: sbHsRep == r && sbHsLatest -> sbHsLost = 1 \
        :: else -> skip \
        fi }
#define RECONNECT(r) \
    :: atomic { \
        !down && !mkUp[r] && phase[r] != DEAD && phase[r] != GONE -> \
        mkUp[r] = 1; \
        if \
        :: hsRep == r -> hsLatest = 0 \
        :: else -> skip \
        fi; \
        if \
        :: sbHsRep == r -> sbHsLatest = 0 \
        :: else -> skip \
        fi }
active proctype markers()
{
    do
    LOSE(1)
    LOSE(2)
    RECONNECT(1)
    RECONNECT(2)
#if NREP >= 3
    LOSE(3)
    RECONNECT(3)
#endif
    od
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
