package io.github.timingwheel.benchmarks.scenarios;

import io.github.timingwheel.benchmarks.subjects.TimerSubject;
import java.lang.management.CompilationMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Runs the comparison scenarios and prints one table per scenario: every subject in the same
 * JVM, taking turns round by round (after one unrecorded warm-up round each; burst-shared
 * repeats it until the JIT settles), each turn after a young collection (so that no subject
 * pays for another's garbage: {@link FreshEden}), each cell the median of the rounds with the
 * lowest and highest in brackets, and under each table how noisy the machine was meanwhile.
 *
 * <p>Run: {@code java -Xms8g -Xmx8g -cp benchmarks/target/benchmarks.jar
 * io.github.timingwheel.benchmarks.scenarios.ScenarioRunner [scenario...] [--rounds N]
 * [--subjects a,b,...] [--quick]}. Scenarios: churn, pending, lateness, burst, periodic,
 * scale, flood, contention, idle, idle-rate, wakeups, flood-stall, burst-shared, oversubscribed,
 * same-instant, flood-busy (default: all, in that order). {@code --quick}
 * shrinks every size, to check that the runner works, not to measure. The subjects {@code baseline-executor} and
 * {@code baseline-timer} are our library as built from another commit, named by
 * {@code -Dbaseline.classpath}; {@code benchmarks/ab.sh <commit> [arguments]} builds it and runs
 * this runner with it.
 */
public final class ScenarioRunner {

    /** The subjects compared by default: ours through both interfaces, the JDK, and Netty twice. */
    static final List<String> DEFAULT_SUBJECTS =
            List.of("wheel-executor", "wheel-timer", "jdk-stpe", "netty-hwt-1ms", "netty-hwt-100ms");

    /**
     * Whether each turn starts with a young collection; {@code -Drunner.youngCollection=false}
     * turns it off, to compare with runs taken without it.
     */
    private static final boolean YOUNG_COLLECTION_EACH_TURN =
            Boolean.parseBoolean(System.getProperty("runner.youngCollection", "true"));
    /** A warm-up round that compiled for less than this has left the JIT settled ({@link #warmUp}). */
    private static final long SETTLED_COMPILE_MS = 100L;
    /** The most warm-up rounds a scenario that warms up until the JIT settles is given. */
    private static final int MAX_WARM_UP_ROUNDS = 5;

    /** flood-stall's 500 ms windows per round: {@code -Dflood-stall.windows}, 8 by default (4 s). */
    private static final int FLOOD_STALL_WINDOWS = Integer.getInteger("flood-stall.windows", 8);

    /**
     * The backlog at which a flood-stall round ends early, so that no subject exhausts the heap:
     * {@code -Dflood-stall.cap}, 20 million by default (fits in 8 GB on every subject); at most 4
     * million with {@code --quick}.
     */
    private static final long FLOOD_STALL_CAP = Long.getLong("flood-stall.cap", 20_000_000L);

    /**
     * churn's producer counts, measured in turn: {@code -Dchurn.producers=1}, for one, takes a
     * third of the time for as many rounds; 1,2,4 by default.
     */
    private static final int[] CHURN_PRODUCERS = Arrays.stream(System.getProperty("churn.producers", "1,2,4")
            .split(",")).mapToInt(Integer::parseInt).toArray();

    /** oversubscribed's spinning threads: {@code -Doversubscribed.spinners}, 6 by default. */
    private static final int SPINNERS = Integer.getInteger("oversubscribed.spinners", 6);

    private ScenarioRunner() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = 3;
        boolean quick = false;
        List<String> subjects = DEFAULT_SUBJECTS;
        List<String> chosen = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rounds" -> rounds = Integer.parseInt(value(args, ++i, "--rounds"));
                case "--subjects" -> subjects = Arrays.asList(value(args, ++i, "--subjects").split(","));
                case "--quick" -> quick = true;
                case "-h", "--help" -> {
                    System.out.println(usage());
                    return;
                }
                default -> chosen.add(args[i]);
            }
        }
        if (rounds < 1) {
            throw new IllegalArgumentException("--rounds must be at least 1: " + rounds);
        }
        List<String> available = new ArrayList<>();
        for (String subject : subjects) {
            try {
                TimerSubject.create(subject).close(); // fail now on a misspelt name, not after an hour
                available.add(subject);
            } catch (TimerSubject.Unavailable unavailable) {
                System.out.println("skipped: " + unavailable.getMessage());
            }
        }
        subjects = available;
        Map<String, Scenario> scenarios = scenarios(quick);
        List<Scenario> toRun = new ArrayList<>();
        for (String name : chosen.isEmpty() ? List.copyOf(scenarios.keySet()) : chosen) {
            Scenario scenario = scenarios.get(name);
            if (scenario == null) {
                throw new IllegalArgumentException("unknown scenario: " + name + "\n" + usage());
            }
            toRun.add(scenario);
        }
        System.out.println(machine());
        for (Scenario scenario : toRun) {
            run(scenario, subjects, rounds);
        }
    }

    static Map<String, Scenario> scenarios(boolean quick) {
        Map<String, Scenario> all = new LinkedHashMap<>();
        List<Scenario> list = quick
                ? List.of(new Churn(1024, 1, 1, 2), new Pending(100_000), new Lateness(20_000, 1, 1, 50),
                        new Burst(100_000, 200, 500), new Periodic(1_000, 10, 1), new Scale(2, 200_000, 1_000, 100_000),
                        new Flood(4, 1, 1_000_000), new Contention(new Lateness(2_000, 1, 1, 100), 2), new Idle(10_000, 1),
                        new Idle(10_000, 1, 1_000_000), new Wakeups(20_000, 1),
                        new FloodStall(4, Math.min(2, FLOOD_STALL_WINDOWS), Math.min(4_000_000, FLOOD_STALL_CAP)),
                        new Burst(100_000, 300, 200, true), new Oversubscribed(100_000, 500_000, 4, SPINNERS),
                        new SameInstant(20_000, 300),
                        new FloodStall(4, Math.min(2, FLOOD_STALL_WINDOWS), Math.min(4_000_000, FLOOD_STALL_CAP), SPINNERS))
                : List.of(new Churn(1024, 5, CHURN_PRODUCERS), new Pending(1_000_000, 10_000_000),
                        new Lateness(100_000, 5, 1, 50), new Burst(1_000_000, 1_000, 2_000), new Periodic(10_000, 10, 3),
                        new Scale(5, 2_000_000, 1_000, 10_000_000), new Flood(4, 10, 8_000_000),
                        new Contention(new Lateness(10_000, 5, 1, 100), 2), new Idle(1_000_000, 10),
                        new Idle(1_000_000, 10, 10_000_000), new Wakeups(100_000, 5),
                        new FloodStall(4, FLOOD_STALL_WINDOWS, FLOOD_STALL_CAP),
                        new Burst(1_000_000, 1_000, 200, true), new Oversubscribed(1_000_000, 500_000, 4, SPINNERS),
                        new SameInstant(200_000, 300), new FloodStall(4, FLOOD_STALL_WINDOWS, FLOOD_STALL_CAP, SPINNERS));
        list.forEach(s -> all.put(s.name(), s));
        return all;
    }

    private static void run(Scenario scenario, List<String> subjects, int rounds) throws Exception {
        System.out.printf("%n== %s: %s%n   %d rounds after a warm-up round, subjects taking turns%s;"
                + " median (lowest..highest)%n", scenario.name(), scenario.description(), rounds,
                YOUNG_COLLECTION_EACH_TURN ? ", each turn after a young collection" : "");
        MachineNoise noise = new MachineNoise();
        noise.sample(3);
        Results results = new Results(scenario.columns());
        warmUp(scenario, subjects, results);
        for (int round = 1; round <= rounds; round++) {
            for (String subject : subjects) {
                turn(scenario, subject, false, results);
            }
            System.out.printf("   round %d of %d done%n", round, rounds);
        }
        noise.sample(3);
        System.out.print(results.table());
        System.out.print(subjectNotes(subjects));
        System.out.println(noise.summary());
    }

    /**
     * The unrecorded warm-up round: once, or, for a scenario that asks for it, again until a
     * round in which the JIT compiled for less than SETTLED_COMPILE_MS (at most
     * MAX_WARM_UP_ROUNDS rounds), the same rule for every subject.
     */
    private static void warmUp(Scenario scenario, List<String> subjects, Results results) throws Exception {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        boolean untilSettled = scenario.warmsUpUntilTheJitSettles() && jit.isCompilationTimeMonitoringSupported();
        for (int round = 1; ; round++) {
            long compiledBefore = untilSettled ? jit.getTotalCompilationTime() : 0L;
            for (String subject : subjects) {
                turn(scenario, subject, true, results);
            }
            if (!untilSettled) {
                return;
            }
            long compiledMs = jit.getTotalCompilationTime() - compiledBefore;
            if (compiledMs < SETTLED_COMPILE_MS || round == MAX_WARM_UP_ROUNDS) {
                System.out.printf("   warm-up: %d round(s), the JIT compiling for %,d ms in the last%n", round,
                        compiledMs);
                return;
            }
        }
    }

    /** One subject's turn, which starts with an empty young generation ({@link FreshEden}). */
    private static void turn(Scenario scenario, String subject, boolean warmUp, Results results) throws Exception {
        if (YOUNG_COLLECTION_EACH_TURN && !FreshEden.collect()) {
            System.out.printf("   no young collection came before %s's turn: it may pay for earlier garbage%n",
                    subject);
        }
        scenario.run(subject, warmUp, results);
    }

    /** What a reader must know about some subjects to read the table beside them. */
    private static String subjectNotes(List<String> subjects) {
        StringBuilder notes = new StringBuilder();
        if (subjects.contains("jdk-stpe")) {
            notes.append("jdk-stpe: ScheduledThreadPoolExecutor(2) with setRemoveOnCancelPolicy(true)")
                    .append(System.lineSeparator());
        }
        if (subjects.contains("jdk-fjp")) {
            notes.append("jdk-fjp: new ForkJoinPool(2) as a ScheduledExecutorService (JDK 25+); its delay scheduler"
                    + " thread is not among the threads whose CPU is counted").append(System.lineSeparator());
        }
        if (subjects.contains("wheel-executor-default")) {
            notes.append("wheel-executor-default: our executor with the builder's default workers ("
                    + Runtime.getRuntime().availableProcessors() + " here)").append(System.lineSeparator());
        }
        if (subjects.stream().anyMatch(s -> s.startsWith("baseline-"))) {
            notes.append("baseline-*: built from -Dbaseline.classpath=")
                    .append(System.getProperty("baseline.classpath")).append(System.lineSeparator());
        }
        return notes.toString();
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value\n" + usage());
        }
        return args[i];
    }

    private static String usage() {
        return "usage: ScenarioRunner [churn|pending|lateness|burst|periodic|scale|flood|contention|idle|idle-rate"
                + "|wakeups|flood-stall|burst-shared|oversubscribed"
                + "|same-instant|flood-busy ...] [--rounds N]"
                + " [--subjects a,b,...] [--quick]\n  subjects: " + String.join(", ", TimerSubject.NAMES)
                + "\n  default subjects: " + String.join(",", DEFAULT_SUBJECTS);
    }

    private static String machine() {
        Runtime runtime = Runtime.getRuntime();
        String collectors = ManagementFactory.getGarbageCollectorMXBeans().stream()
                .map(GarbageCollectorMXBean::getName).collect(Collectors.joining(", "));
        return String.format("%s; %s %s (%s); %s %s, %d CPUs; max heap %,d MB; GC: %s",
                LocalDateTime.now().format(DateTimeFormatter.ISO_LOCAL_DATE_TIME).substring(0, 16),
                System.getProperty("java.vm.name"), System.getProperty("java.runtime.version"),
                System.getProperty("java.vm.vendor"), System.getProperty("os.name"), System.getProperty("os.arch"),
                runtime.availableProcessors(), runtime.maxMemory() >> 20, collectors);
    }
}
