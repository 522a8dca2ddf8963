/**
 * Small programs a new user runs first; each is also a usage lesson.
 *
 * <ul>
 *   <li>{@link io.github.timingwheel.examples.Demo}: the main demo, "a million short timers",
 *       on our scheduler, {@code ScheduledThreadPoolExecutor} and Netty's
 *       {@code HashedWheelTimer} in one run. Its parts: {@code DemoOptions} (the command line),
 *       {@code Subject} and {@code Contender} (the schedulers under test), {@code Workload} and
 *       {@code Probe} (the timers), {@code Measurements} (memory and idle CPU),
 *       {@code Progress} and {@code ReportTable} (the output).
 *   <li>{@link io.github.timingwheel.examples.NetworkTimeouts}: request deadlines over real
 *       loopback sockets with Netty.
 *   <li>{@link io.github.timingwheel.examples.AsyncHttpClientTimeouts}: AsyncHttpClient's
 *       request timeouts on our {@code WheelTimer}, against {@code SlowHttpServer}, the JDK's
 *       HTTP server on loopback.
 *   <li>{@link io.github.timingwheel.examples.CaffeineExpiry}: a Caffeine cache whose expired
 *       entries our executor removes, with no cache activity.
 *   <li>{@link io.github.timingwheel.examples.ReplacingScheduledThreadPool}: the same jobs on
 *       {@code Executors.newScheduledThreadPool} and on ours.
 *   <li>{@link io.github.timingwheel.examples.FixedRateVsFixedDelay}: when each run starts.
 *   <li>{@link io.github.timingwheel.examples.MissedRunPolicies}: what a fixed-rate task does
 *       after missed runs, under each {@code MissedRunPolicy}, and each executor's metrics.
 * </ul>
 *
 * <p>Each program's {@code main} delegates to a {@code run(String[], PrintStream)} method that
 * returns the exit code, so that the tests run it in-process and read what it printed.
 */
package io.github.timingwheel.examples;
