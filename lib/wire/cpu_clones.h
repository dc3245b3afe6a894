/* HW_HOT_CLONES: build a hot function twice, for x86-64-v3 (AVX2, BMI2, MOVBE: wider stores,
 * load-and-swap) and for the baseline; the loader picks the one for the CPU it runs on. */
#ifndef HOPWATCH_CPU_CLONES_H
#define HOPWATCH_CPU_CLONES_H

/* GCC function multiversioning (an ifunc per function).  Left out where it cannot work or does not
 * matter: other compilers, other architectures, unoptimised and sanitizer builds. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12 && defined(__OPTIMIZE__) &&      \
    !defined(__SANITIZE_ADDRESS__)
#define HW_HOT_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define HW_HOT_CLONES
#endif

#endif
