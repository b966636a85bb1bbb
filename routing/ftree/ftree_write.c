/* ftree: the second thread: finishing decided rows (the detours, through
 * the fix callback), writing them into the tables, and side jobs (the
 * next targets' setups, ftree_ahead.c), a few queued in order.
 *
 * Each LID yields one next hop per switch, but the tables are stored per
 * switch (one row each), so writing a LID touches one byte in every row.
 * Snapshots of FT_WINDOW LIDs are buffered and written row by row. The
 * writing is independent of the routing that follows (later LIDs never
 * read the tables), so with two threads the router fills one buffer
 * while the writer empties those handed over. So are the detours (they read a
 * LID's own row and the turns taken for the LIDs before it): fix runs
 * on each row of a window, in LID order, before the window is written.
 * The bytes written, and their order within each row, are the same
 * either way. A side job must only touch state the router leaves alone
 * until ft_writer_side_wait takes it; with one thread it runs at once,
 * with two on the writer (oldest first, before windows and between
 * rows) or, when the router comes to wait for one the writer has not
 * started, on the router. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ftree.h"

/* mu held, j pending: run it with mu dropped (on whichever thread
 * claims it first); returns with mu held and j done. */
static void run_job_locked(struct ft_writer *wr, struct ft_side *j)
{
	j->state = FT_SIDE_RUNNING;
	__atomic_fetch_sub(&wr->side_pending, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&wr->mu);
	j->fn(j->arg);
	pthread_mutex_lock(&wr->mu);
	j->state = FT_SIDE_DONE;
	pthread_cond_broadcast(&wr->cv);
}

/* Writer thread, mu held: run the oldest side job nobody has started,
 * if any; returns with mu held. */
static void run_side_locked(struct ft_writer *wr)
{
	struct ft_side *j = NULL;
	for (uint32_t i = 0; i < wr->side_n && !j; i++) {
		struct ft_side *c = &wr->side[(wr->side_head + i) % FT_SIDE_MAX];
		if (c->state == FT_SIDE_PENDING)
			j = c;
	}
	if (j)
		run_job_locked(wr, j);
}

/* Between the rows of a window: the router waits for the side jobs (the
 * next targets' setups), so start them now rather than after the
 * window's detours, which can take milliseconds (switch LIDs). */
static void side_between_rows(struct ft_writer *wr)
{
	if (!wr->threaded || !__atomic_load_n(&wr->side_pending, __ATOMIC_ACQUIRE))
		return;
	pthread_mutex_lock(&wr->mu);
	while (__atomic_load_n(&wr->side_pending, __ATOMIC_RELAXED))
		run_side_locked(wr);
	pthread_mutex_unlock(&wr->mu);
}

static void write_window(struct ft_writer *wr, const struct ft_window *win)
{
	uint32_t nsw = wr->nsw;
	for (uint32_t k = 0; wr->fix && k < win->count; k++) {
		side_between_rows(wr);
		if (win->ctx[k])
			wr->fix(wr->fix_arg, win->ctx[k], win->nh + (size_t)k * nsw);
	}
	for (uint32_t s = 0; s < nsw; s++) {
		uint8_t *row = lft_row(wr->lft, s);
		for (uint32_t k = 0; k < win->count; k++)
			row[win->lid[k]] = win->nh[(size_t)k * nsw + s];
	}
}

/* The side jobs first, oldest first (the router takes them in order),
 * then the oldest window handed over; when stopped, the windows left,
 * then out. */
static void *writer_main(void *arg)
{
	struct ft_writer *wr = arg;
	pthread_mutex_lock(&wr->mu);
	for (;;) {
		if (__atomic_load_n(&wr->side_pending, __ATOMIC_RELAXED)) {
			run_side_locked(wr);
			continue;
		}
		if (wr->queued) {
			struct ft_window *win = &wr->win[wr->head];
			pthread_mutex_unlock(&wr->mu);
			write_window(wr, win);
			pthread_mutex_lock(&wr->mu);
			win->count = 0;
			wr->head = (wr->head + 1) % FT_WINDOWS;
			wr->queued--;
			pthread_cond_broadcast(&wr->cv);
			continue;
		}
		if (wr->stop)
			break;
		pthread_cond_wait(&wr->cv, &wr->mu);
	}
	pthread_mutex_unlock(&wr->mu);
	wr->cpu = ft_thread_cpu();      /* read after the join */
	return NULL;
}

/* Two threads when told so; 0 means two if there are two CPUs and the
 * tables are large enough to pay for it. */
static int want_thread(unsigned threads, uint64_t entries)
{
	if (threads)
		return threads > 1;
	return sysconf(_SC_NPROCESSORS_ONLN) > 1 && entries >= FT_THREAD_MIN_ENTRIES;
}

int ft_writer_init(struct ft_writer *wr, const struct ftree *t,
		   struct lft_set *lft, unsigned threads)
{
	memset(wr, 0, sizeof(*wr));
	wr->cpu = -1;
	wr->nsw = t->nsw;
	wr->lft = lft;
	/* One window alone, or FT_WINDOWS with the second thread: the
	 * router can run that far ahead of the detours and writes (and the
	 * other way round), so neither waits whenever the other is briefly
	 * descheduled on a busy machine. */
	int two = want_thread(threads, (uint64_t)t->nsw * lft->stride);
	for (int i = 0; i < (two ? FT_WINDOWS : 1); i++) {
		wr->win[i].nh = malloc((size_t)t->nsw * FT_WINDOW + 1);
		if (!wr->win[i].nh) {
			ft_writer_finish(wr);
			return -ENOMEM;
		}
	}
	wr->cur = 0;
	if (!two)
		return 0;
	if (pthread_mutex_init(&wr->mu, NULL))
		return 0;
	if (pthread_cond_init(&wr->cv, NULL)) {
		pthread_mutex_destroy(&wr->mu);
		return 0;
	}
	if (pthread_create(&wr->tid, NULL, writer_main, wr)) {
		pthread_cond_destroy(&wr->cv);
		pthread_mutex_destroy(&wr->mu);
		return 0;       /* one thread works too */
	}
	wr->threaded = 1;
	return 0;
}

/* Hand the current window over (or write it here) and start the next. */
static void hand_over(struct ft_writer *wr)
{
	struct ft_window *w = &wr->win[wr->cur];
	if (!w->count)
		return;
	if (!wr->threaded) {
		write_window(wr, w);
		w->count = 0;
		return;
	}
	pthread_mutex_lock(&wr->mu);
	while (wr->queued == FT_WINDOWS - 1)
		pthread_cond_wait(&wr->cv, &wr->mu);
	wr->queued++;           /* win[cur] is win[head + queued - 1] */
	wr->cur = (wr->head + wr->queued) % FT_WINDOWS;
	pthread_cond_broadcast(&wr->cv);
	pthread_mutex_unlock(&wr->mu);
}

void ft_writer_add(struct ft_writer *wr, const uint8_t *nh, uint32_t lid,
		   void *ctx)
{
	struct ft_window *w = &wr->win[wr->cur];
	w->lid[w->count] = lid;
	w->ctx[w->count] = ctx;
	memcpy(w->nh + (size_t)w->count * wr->nsw, nh, wr->nsw);
	if (++w->count == FT_WINDOW)
		hand_over(wr);
}

int ft_writer_side(struct ft_writer *wr, void (*fn)(void *), void *arg)
{
	if (!wr->threaded) {
		fn(arg);
		return 0;
	}
	/* Only the router queues and takes: it would wait for itself. */
	if (wr->side_n == FT_SIDE_MAX)
		return -EBUSY;
	pthread_mutex_lock(&wr->mu);
	struct ft_side *j = &wr->side[(wr->side_head + wr->side_n++) % FT_SIDE_MAX];
	j->fn = fn;
	j->arg = arg;
	j->state = FT_SIDE_PENDING;
	__atomic_fetch_add(&wr->side_pending, 1, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&wr->cv);
	pthread_mutex_unlock(&wr->mu);
	return 0;
}

void ft_writer_side_wait(struct ft_writer *wr)
{
	if (!wr->threaded)
		return;
	pthread_mutex_lock(&wr->mu);
	if (!wr->side_n) {
		pthread_mutex_unlock(&wr->mu);
		return;
	}
	struct ft_side *j = &wr->side[wr->side_head];
	if (j->state == FT_SIDE_PENDING)
		run_job_locked(wr, j);  /* not started: the router runs it */
	while (j->state != FT_SIDE_DONE)
		pthread_cond_wait(&wr->cv, &wr->mu);
	j->state = 0;
	wr->side_head = (wr->side_head + 1) % FT_SIDE_MAX;
	wr->side_n--;
	pthread_cond_broadcast(&wr->cv);
	pthread_mutex_unlock(&wr->mu);
}

void ft_writer_finish(struct ft_writer *wr)
{
	while (wr->threaded && wr->side_n)      /* (router's thread: no race) */
		ft_writer_side_wait(wr);
	if (wr->win[wr->cur].nh)
		hand_over(wr);
	if (wr->threaded) {
		pthread_mutex_lock(&wr->mu);
		wr->stop = 1;
		pthread_cond_broadcast(&wr->cv);
		pthread_mutex_unlock(&wr->mu);
		pthread_join(wr->tid, NULL);
		pthread_cond_destroy(&wr->cv);
		pthread_mutex_destroy(&wr->mu);
		wr->threaded = 0;
	}
	for (int i = 0; i < FT_WINDOWS; i++) {
		free(wr->win[i].nh);
		wr->win[i].nh = NULL;
	}
	wr->cur = 0;
}
