/* Host replay of mallocPrintf's printf calls: argv = 8 input values, then 8 sums. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv)
{
    int v[8], sum[8];
    for (int t = 0; t < 8; ++t) {
        v[t] = atoi(argv[1 + t]);
        sum[t] = atoi(argv[9 + t]);
    }
    for (int t = 0; t < 8; ++t) {
        printf("t=%d v=%i u=%u x=%x X=%X o=%o |%5d|%-5d|%+d|% d|%05d| %c\n",
               t, v[t], (unsigned)v[t], v[t], v[t], (unsigned)v[t] & 0777u, sum[t], t, v[t], v[t], t * 7, 'a' + t);
    }
    float f = 3.14159265f;
    double d = -2.5e-7;
    long long big = -1234567890123LL;
    unsigned long long ubig = 18446744073709551615ULL;
    printf("%s|%10.4f|%-12.3e|%g|%G|%E|%.0f|%#x|%#o|%8.3s|\n", "str", f, d, 0.0001234, 1e20, 12345.678, 2.5, 255, 8, "abcdef");
    printf("%lld %llu %llx %5.2f%% %+.3e %c%c\n", big, ubig, (unsigned long long)big, 99.5, 1.0 / 3.0, 'O', 'K');
    return 0;
}
