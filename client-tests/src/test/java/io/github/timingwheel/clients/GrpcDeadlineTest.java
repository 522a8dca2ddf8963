package io.github.timingwheel.clients;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.util.concurrent.ListenableFuture;
import io.github.timingwheel.executor.WheelScheduledExecutor;
import io.grpc.CallOptions;
import io.grpc.Context;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * gRPC calls whose deadlines run on our executor: an in-process server and channel, each given
 * the executor as its {@code scheduledExecutorService}, as a service that shares one scheduler
 * among its clients would configure them. The client arms a timer per call for its deadline
 * (gRPC's {@code ClientCallImpl}) and cancels it when the call completes; the server arms one per
 * call to cancel the call's {@link Context} at the deadline. gRPC measures the deadline with its
 * own reading of {@code System.nanoTime()}, so a timer that fires before it would end a call
 * early by gRPC's own clock.
 */
class GrpcDeadlineTest {

    private static final String SERVICE = "timingwheel.test.Echo";
    private static final MethodDescriptor<String, String> ECHO = MethodDescriptor.<String, String>newBuilder()
            .setType(MethodDescriptor.MethodType.UNARY)
            .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, "Echo"))
            .setRequestMarshaller(new Utf8())
            .setResponseMarshaller(new Utf8())
            .build();
    /** Requests whose body is this are never answered: only the deadline ends them. */
    private static final String STALL = "stall";
    private static final long DEADLINE_MILLIS = 30L;
    /** Far beyond any stall of a loaded machine: a call answered at once never meets it. */
    private static final long FAR_DEADLINE_SECONDS = 60L;

    private final WheelScheduledExecutor timers = WheelScheduledExecutor.builder().workers(2).daemon(true)
            .name("grpc-deadlines").build();
    /** Stalled calls whose handler the server ran; a call whose deadline passed first never gets there. */
    private final AtomicInteger serverCallsStalled = new AtomicInteger();
    /** A permit for each stalled call whose Context was cancelled. */
    private final Semaphore serverContextsCancelled = new Semaphore(0);
    private Server server;
    private ManagedChannel channel;

    @BeforeEach
    void start() throws IOException {
        String name = InProcessServerBuilder.generateName();
        server = InProcessServerBuilder.forName(name).directExecutor().scheduledExecutorService(timers)
                .addService(echoService()).build().start();
        channel = InProcessChannelBuilder.forName(name).directExecutor().scheduledExecutorService(timers).build();
    }

    @AfterEach
    void stop() throws InterruptedException {
        channel.shutdownNow();
        server.shutdownNow();
        assertThat(channel.awaitTermination(10, SECONDS)).isTrue();
        assertThat(server.awaitTermination(10, SECONDS)).isTrue();
        timers.shutdownNow();
    }

    /**
     * Calls to a server that never answers end with DEADLINE_EXCEEDED, each no sooner than its
     * deadline by the caller's clock, and the server's Context of each that reached the server
     * is cancelled too (by the server's own deadline timer or by the client's cancel), and each
     * that reached the server was ended by one of our timers: it arms two (the client's and the
     * server's), and the first to run ends it. A call that starts after its deadline has passed
     * (the first call of a cold JVM can spend longer than the deadline loading classes) arms
     * none and fails at once, so the count is of the calls that reached the server, not of all
     * calls; one answered call first takes the channel out of its idle mode and loads the
     * classes. Mutants: a task that never runs (every call waits past the test's bound), a
     * deadline a millisecond early (elapsed below the deadline), a channel and server left on
     * gRPC's own scheduler (no run of ours counted).
     */
    @Test
    void stalledCalls_endAtTheirDeadline_neverBefore_onBothSides() throws Exception {
        assertThat(ClientCalls.futureUnaryCall(channel.newCall(ECHO,
                CallOptions.DEFAULT.withDeadlineAfter(FAR_DEADLINE_SECONDS, SECONDS)), "warm-up").get(30, SECONDS))
                .isEqualTo("warm-up");
        long ranBefore = timers.metrics().ran();
        List<ListenableFuture<String>> futures = new ArrayList<>();
        long[] elapsed = InRounds.elapsedNanos(10, 20, (index, onEnd) -> {
            ListenableFuture<String> future = ClientCalls.futureUnaryCall(
                    channel.newCall(ECHO, CallOptions.DEFAULT.withDeadlineAfter(DEADLINE_MILLIS, MILLISECONDS)), STALL);
            future.addListener(onEnd, Runnable::run);
            futures.add(future);
        });
        for (int i = 0; i < elapsed.length; i++) {
            Status status = statusOf(futures.get(i));
            assertThat(status.getCode()).as("call %d", i).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
            assertThat(elapsed[i]).as("call %d ended after (ns)", i)
                    .isGreaterThanOrEqualTo(MILLISECONDS.toNanos(DEADLINE_MILLIS));
        }
        // The in-process transport with direct executors runs the server's handler inside the
        // client's call, so every stalled call that reached the server has done so by now.
        int reached = serverCallsStalled.get();
        assertThat(reached).as("stalled calls the server's handler saw").isPositive();
        assertThat(serverContextsCancelled.tryAcquire(reached, 30, SECONDS))
                .as("the server's Context of each of the %d stalled calls cancelled", reached).isTrue();
        assertThat(TimerRuns.awaitAtLeast(() -> timers.metrics().ran() - ranBefore, reached))
                .as("deadline timers run on our executor, one at least for each call that reached the server")
                .isGreaterThanOrEqualTo(reached);
    }

    /**
     * Calls answered at once complete normally, and every deadline timer they armed, on the
     * client and on the server, is cancelled and leaves the queue: none of the executor's
     * pending tasks is due within the far deadline (gRPC's channel keeps an idle timer of its
     * own, due 30 minutes on). Mutant: a cancel that reports success but leaves the task in its
     * wheel (the queue still holds the calls' timers).
     */
    @Test
    void answeredCalls_cancelTheirDeadlineTimers_noneLeftInTheQueue() throws Exception {
        int calls = 2_000;
        List<ListenableFuture<String>> futures = new ArrayList<>();
        for (int i = 0; i < calls; i++) {
            futures.add(ClientCalls.futureUnaryCall(
                    channel.newCall(ECHO, CallOptions.DEFAULT.withDeadlineAfter(FAR_DEADLINE_SECONDS, SECONDS)),
                    "hello " + i));
        }
        for (int i = 0; i < calls; i++) {
            assertThat(futures.get(i).get(30, SECONDS)).isEqualTo("hello " + i);
        }
        assertThat(timers.metrics().scheduled()).as("deadline timers armed on our executor")
                .isGreaterThanOrEqualTo(2L * calls);
        assertThat(timers.metrics().cancelled()).as("client and server deadline timers cancelled")
                .isGreaterThanOrEqualTo(2L * calls);
        assertThat(timers.getQueue()).as("tasks due within the calls' deadline")
                .noneMatch(task -> ((Delayed) task).getDelay(SECONDS) <= FAR_DEADLINE_SECONDS);
    }

    private ServerServiceDefinition echoService() {
        return ServerServiceDefinition.builder(SERVICE)
                .addMethod(ECHO, ServerCalls.asyncUnaryCall(this::echo))
                .build();
    }

    private void echo(String request, StreamObserver<String> response) {
        if (!STALL.equals(request)) {
            response.onNext(request);
            response.onCompleted();
            return;
        }
        serverCallsStalled.incrementAndGet();
        Context.current().addListener(cancelled -> serverContextsCancelled.release(), Runnable::run);
    }

    /** The status a call that has ended (InRounds waited for it) failed with. */
    private static Status statusOf(ListenableFuture<String> future) throws InterruptedException {
        try {
            future.get();
            throw new AssertionError("the call succeeded");
        } catch (ExecutionException failed) {
            assertThat(failed.getCause()).isInstanceOf(StatusRuntimeException.class);
            return ((StatusRuntimeException) failed.getCause()).getStatus();
        }
    }

    /** Strings as UTF-8: the smallest marshaller, so that no code generation is needed. */
    private static final class Utf8 implements MethodDescriptor.Marshaller<String> {
        @Override
        public InputStream stream(String value) {
            return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public String parse(InputStream stream) {
            try {
                return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
