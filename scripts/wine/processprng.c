/*
 * bcryptprimitives.dll for wine 8.0, which has none. Rust's standard library
 * (1.78 and later) fills its random numbers (HashMap keys) from
 * bcryptprimitives.dll!ProcessPrng, the call Windows 10 and later provide;
 * without it fsfit.exe stops before main under wine 8.0. This DLL gives that
 * one function from BCryptGenRandom, which wine 8.0 has. Only the test
 * WINEPREFIX gets it (scripts/wine/prefix); a real Windows has its own, and
 * the release zip does not carry it.
 */
#include <windows.h>
#include <bcrypt.h>

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
    while (len > 0) {
        ULONG n = len > 0x10000000 ? 0x10000000 : (ULONG)len;
        if (BCryptGenRandom(NULL, data, n, BCRYPT_USE_SYSTEM_PREFERRED_RNG) != 0)
            return FALSE;
        data += n;
        len -= n;
    }
    return TRUE;
}
