#ifndef TICK_H
#define TICK_H

/* tick_now returns a counter that never goes backwards. */
unsigned long long tick_now(void);

#endif
