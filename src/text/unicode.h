/*
 * unicode.h — the text layer's view of the Unicode Character Database
 * (internal to src/text; other layers use text.h).
 *
 * The tables behind tv_uc_props() are generated at build time by
 * src/text/gen_unicode.py from Debian's unicode-data files into the build
 * directory (see src/text/layer.cmake); nothing generated is committed.
 *
 * Layout: a two-stage lookup. tv_uc_stage1[cp >> 7] selects a 128-entry
 * block of tv_uc_stage2 (identical blocks are stored once); each entry of
 * the block is an index into tv_uc_props_table, the list of distinct
 * property records. One lookup is two dependent loads.
 */
#ifndef TROVE_TEXT_UNICODE_H
#define TROVE_TEXT_UNICODE_H

#include <stddef.h>
#include <stdint.h>

/* Word_Break property values (UAX #29). The generator checks these numbers. */
enum {
    TV_WB_OTHER = 0,
    TV_WB_CR,
    TV_WB_LF,
    TV_WB_NEWLINE,
    TV_WB_EXTEND,
    TV_WB_ZWJ,
    TV_WB_RI,
    TV_WB_FORMAT,
    TV_WB_KATAKANA,
    TV_WB_HEBREW_LETTER,
    TV_WB_ALETTER,
    TV_WB_SINGLE_QUOTE,
    TV_WB_DOUBLE_QUOTE,
    TV_WB_MIDNUMLET,
    TV_WB_MIDLETTER,
    TV_WB_MIDNUM,
    TV_WB_NUMERIC,
    TV_WB_EXTENDNUMLET,
    TV_WB_WSEGSPACE,
    TV_WB_COUNT_
};

/* Flag bits of tv_uc_record.flags. */
enum {
    TV_UCF_EXTPICT = 1u << 0,   /* Extended_Pictographic (emoji-data.txt) */
    TV_UCF_EMOJI = 1u << 1,     /* Emoji */
    TV_UCF_EMB = 1u << 2,       /* Emoji_Modifier_Base */
    TV_UCF_EM = 1u << 3,        /* Emoji_Modifier */
    TV_UCF_EMOJICHAR = 1u << 4, /* Extended_Pictographic, or Emoji but not a regional indicator,
                                   keycap base [0-9#*], ©®™〰〽 or Emoji_Modifier */
    TV_UCF_SA = 1u << 5,        /* Line_Break = Complex_Context (Thai, Lao, Myanmar, Khmer, ...) */
    TV_UCF_HAN = 1u << 6,       /* Script = Han */
    TV_UCF_HIRAGANA = 1u << 7,  /* Script = Hiragana */
    TV_UCF_HANGUL = 1u << 8,    /* Script = Hangul */
    TV_UCF_NUMERIC = 1u << 9,   /* WB = Numeric, or Nd in the Halfwidth and Fullwidth Forms block */
    TV_UCF_JWHITE = 1u << 10,   /* Java Character.isWhitespace */
    TV_UCF_JLETTER = 1u << 11,  /* Java Character.isLetter (general category L*) */
    TV_UCF_MARK = 1u << 12,     /* general category Mn/Mc/Me */
    TV_UCF_JPUNCT = 1u << 13,   /* Z*, Cc, Cf, P*, S*: kuromoji's isPunctuation */
};

/* General categories, numbered as Java's Character.getType. */
enum {
    TV_GC_CN = 0, TV_GC_LU, TV_GC_LL, TV_GC_LT, TV_GC_LM, TV_GC_LO, TV_GC_MN, TV_GC_ME, TV_GC_MC,
    TV_GC_ND, TV_GC_NL, TV_GC_NO, TV_GC_ZS, TV_GC_ZL, TV_GC_ZP, TV_GC_CC, TV_GC_CF,
    TV_GC_CO = 18, TV_GC_CS, TV_GC_PD, TV_GC_PS, TV_GC_PE, TV_GC_PC, TV_GC_PO, TV_GC_SM,
    TV_GC_SC, TV_GC_SK, TV_GC_SO, TV_GC_PI, TV_GC_PF
};

typedef struct tv_uc_record {
    uint8_t wb;     /* TV_WB_* */
    uint8_t gc;     /* general category, numbered as Java's Character.getType (TV_GC_*) */
    uint16_t flags; /* TV_UCF_* */
    int32_t lower;  /* simple lowercase mapping minus cp (UnicodeData field 13) */
    int32_t upper;  /* simple uppercase mapping minus cp (UnicodeData field 12) */
} tv_uc_record;

extern const uint16_t tv_uc_stage1[0x110000 >> 7];
extern const uint16_t tv_uc_stage2[];
extern const tv_uc_record tv_uc_props_table[];

static inline const tv_uc_record *tv_uc_props(uint32_t cp) {
    if (cp > 0x10FFFF) cp = 0xFFFD;
    return &tv_uc_props_table[tv_uc_stage2[((uint32_t)tv_uc_stage1[cp >> 7] << 7) | (cp & 127)]];
}

static inline uint32_t tv_uc_lower(uint32_t cp) { return (uint32_t)((int32_t)cp + tv_uc_props(cp)->lower); }
static inline uint32_t tv_uc_upper(uint32_t cp) { return (uint32_t)((int32_t)cp + tv_uc_props(cp)->upper); }

/*
 * ASCII folding (Lucene's ASCIIFoldingFilter): the ASCII replacement of cp,
 * or NULL when cp has none. *len receives the replacement's length.
 * Entries come from the Unicode decompositions (canonical, and the
 * compatibility forms wide/narrow/super/sub/circle/font and Latin
 * ligatures) with combining marks removed, plus a hand-written table for
 * letters without a decomposition (Æ, Ø, ß, Ł, Þ, ...) and punctuation.
 */
const char *tv_uc_ascii_fold(uint32_t cp, size_t *len);

typedef struct tv_uc_fold {
    uint32_t cp;
    uint16_t off; /* offset into tv_uc_fold_pool */
    uint8_t len;
} tv_uc_fold;
extern const tv_uc_fold tv_uc_fold_table[];
extern const size_t tv_uc_fold_count;
extern const char tv_uc_fold_pool[];

/* The digit zero of each run of ten decimal digits (general category Nd,
 * ascending): cp is a decimal digit of value cp - z when z <= cp < z + 10
 * for one of them (decimal_digit, Java's Character.digit). */
extern const uint32_t tv_uc_digit_zero[];
extern const size_t tv_uc_digit_zero_count;

#endif /* TROVE_TEXT_UNICODE_H */
