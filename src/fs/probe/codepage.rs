//! DOS OEM code pages for FAT short names and volume labels. A FAT label
//! is stored as bytes in the code page of the system that wrote it; Linux
//! decodes it with the mount's codepage= option, cp437 by default
//! (CONFIG_FAT_DEFAULT_CODEPAGE), Windows with its OEM code page.
//!
//! The upper halves (0x80..=0xFF) below were generated from Python's
//! codecs module (`bytes(range(128, 256)).decode("cpNNN")`); the lower half
//! is ASCII in every page listed. Bytes a page leaves undefined decode to
//! U+FFFD.

/// A code page by number, its upper half, and what it is for.
#[derive(Debug)]
pub struct CodePage {
    pub number: u16,
    pub about: &'static str,
    upper: &'static str,
}

impl CodePage {
    /// "cp437".
    pub fn name(&self) -> String {
        format!("cp{}", self.number)
    }

    /// The text of `bytes` in this code page.
    pub fn decode(&self, bytes: &[u8]) -> String {
        bytes
            .iter()
            .map(|&b| {
                if b < 0x80 {
                    b as char
                } else {
                    self.upper
                        .chars()
                        .nth(usize::from(b - 0x80))
                        .unwrap_or(char::REPLACEMENT_CHARACTER)
                }
            })
            .collect()
    }
}

/// A code page fsfit does not know: bad input (exit 2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownCodePage(String);

impl std::fmt::Display for UnknownCodePage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UnknownCodePage {}

impl From<UnknownCodePage> for crate::Error {
    fn from(e: UnknownCodePage) -> crate::Error {
        crate::Error::Input(e.0)
    }
}

/// Parse "437", "cp437", "CP850", "ibm850".
pub fn by_name(name: &str) -> Result<&'static CodePage, UnknownCodePage> {
    let n = name.trim().to_ascii_lowercase();
    let digits = n
        .strip_prefix("cp")
        .or_else(|| n.strip_prefix("ibm"))
        .unwrap_or(&n);
    PAGES
        .iter()
        .find(|p| digits.parse::<u16>().is_ok_and(|d| d == p.number))
        .ok_or_else(|| {
            let known: Vec<String> = PAGES.iter().map(|p| p.number.to_string()).collect();
            // Said as a list of choices, which a refusal shortens to fit
            // 100 columns and points at --help for the rest.
            UnknownCodePage(format!(
                "unknown code page {name:?} (choose from cp{})",
                known.join(", cp")
            ))
        })
}

/// The Linux kernel's default for FAT (cp437).
pub fn default_page() -> &'static CodePage {
    &PAGES[0]
}

pub static PAGES: &[CodePage] = &[
    CodePage {
        number: 437,
        about: "United States (the Linux vfat default)",
        upper: "ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜ¢£¥₧ƒáíóúñÑªº¿⌐¬½¼¡«»░▒▓│┤╡╢╖╕╣║╗╝╜╛┐└┴┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀αßΓπΣσµτΦΘΩδ∞φε∩≡±≥≤⌠⌡÷≈°∙·√ⁿ²■\u{a0}",
    },
    CodePage {
        number: 850,
        about: "Western Europe",
        upper: "ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜø£Ø×ƒáíóúñÑªº¿®¬½¼¡«»░▒▓│┤ÁÂÀ©╣║╗╝¢¥┐└┴┬├─┼ãÃ╚╔╩╦╠═╬¤ðÐÊËÈıÍÎÏ┘┌█▄¦Ì▀ÓßÔÒõÕµþÞÚÛÙýÝ¯´\u{ad}±‗¾¶§÷¸°¨·¹³²■\u{a0}",
    },
    CodePage {
        number: 852,
        about: "Central Europe",
        upper: "ÇüéâäůćçłëŐőîŹÄĆÉĹĺôöĽľŚśÖÜŤťŁ×čáíóúĄąŽžĘę¬źČş«»░▒▓│┤ÁÂĚŞ╣║╗╝Żż┐└┴┬├─┼Ăă╚╔╩╦╠═╬¤đĐĎËďŇÍÎě┘┌█▄ŢŮ▀ÓßÔŃńňŠšŔÚŕŰýÝţ´\u{ad}˝˛ˇ˘§÷¸°¨˙űŘř■\u{a0}",
    },
    CodePage {
        number: 855,
        about: "Cyrillic",
        upper: "ђЂѓЃёЁєЄѕЅіІїЇјЈљЉњЊћЋќЌўЎџЏюЮъЪаАбБцЦдДеЕфФгГ«»░▒▓│┤хХиИ╣║╗╝йЙ┐└┴┬├─┼кК╚╔╩╦╠═╬¤лЛмМнНоОп┘┌█▄Пя▀ЯрРсСтТуУжЖвВьЬ№\u{ad}ыЫзЗшШэЭщЩчЧ§■\u{a0}",
    },
    CodePage {
        number: 857,
        about: "Turkish",
        upper: "ÇüéâäàåçêëèïîıÄÅÉæÆôöòûùİÖÜø£ØŞşáíóúñÑĞğ¿®¬½¼¡«»░▒▓│┤ÁÂÀ©╣║╗╝¢¥┐└┴┬├─┼ãÃ╚╔╩╦╠═╬¤ºªÊËÈ�ÍÎÏ┘┌█▄¦Ì▀ÓßÔÒõÕµ�×ÚÛÙìÿ¯´\u{ad}±�¾¶§÷¸°¨·¹³²■\u{a0}",
    },
    CodePage {
        number: 858,
        about: "Western Europe with the euro sign",
        upper: "ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜø£Ø×ƒáíóúñÑªº¿®¬½¼¡«»░▒▓│┤ÁÂÀ©╣║╗╝¢¥┐└┴┬├─┼ãÃ╚╔╩╦╠═╬¤ðÐÊËÈ€ÍÎÏ┘┌█▄¦Ì▀ÓßÔÒõÕµþÞÚÛÙýÝ¯´\u{ad}±‗¾¶§÷¸°¨·¹³²■\u{a0}",
    },
    CodePage {
        number: 860,
        about: "Portuguese",
        upper: "ÇüéâãàÁçêÊèÍÔìÃÂÉÀÈôõòÚùÌÕÜ¢£Ù₧ÓáíóúñÑªº¿Ò¬½¼¡«»░▒▓│┤╡╢╖╕╣║╗╝╜╛┐└┴┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀αßΓπΣσµτΦΘΩδ∞φε∩≡±≥≤⌠⌡÷≈°∙·√ⁿ²■\u{a0}",
    },
    CodePage {
        number: 861,
        about: "Icelandic",
        upper: "ÇüéâäàåçêëèÐðÞÄÅÉæÆôöþûÝýÖÜø£Ø₧ƒáíóúÁÍÓÚ¿⌐¬½¼¡«»░▒▓│┤╡╢╖╕╣║╗╝╜╛┐└┴┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀αßΓπΣσµτΦΘΩδ∞φε∩≡±≥≤⌠⌡÷≈°∙·√ⁿ²■\u{a0}",
    },
    CodePage {
        number: 862,
        about: "Hebrew",
        upper: "אבגדהוזחטיךכלםמןנסעףפץצקרשת¢£¥₧ƒáíóúñÑªº¿⌐¬½¼¡«»░▒▓│┤╡╢╖╕╣║╗╝╜╛┐└┴┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀αßΓπΣσµτΦΘΩδ∞φε∩≡±≥≤⌠⌡÷≈°∙·√ⁿ²■\u{a0}",
    },
    CodePage {
        number: 863,
        about: "Canadian French",
        upper: "ÇüéâÂà¶çêëèïî‗À§ÉÈÊôËÏûù¤ÔÜ¢£ÙÛƒ¦´óú¨¸³¯Î⌐¬½¼¾«»░▒▓│┤╡╢╖╕╣║╗╝╜╛┐└┴┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀αßΓπΣσµτΦΘΩδ∞φε∩≡±≥≤⌠⌡÷≈°∙·√ⁿ²■\u{a0}",
    },
    CodePage {
        number: 865,
        about: "Nordic",
        upper: "ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜø£Ø₧ƒáíóúñÑªº¿⌐¬½¼¡«¤░▒▓│┤╡╢╖╕╣║╗╝╜╛┐└┴┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀αßΓπΣσµτΦΘΩδ∞φε∩≡±≥≤⌠⌡÷≈°∙·√ⁿ²■\u{a0}",
    },
    CodePage {
        number: 866,
        about: "Russian",
        upper: "АБВГДЕЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯабвгдежзийклмноп░▒▓│┤╡╢╖╕╣║╗╝╜╛┐└┴┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀рстуфхцчшщъыьэюяЁёЄєЇїЎў°∙·√№¤■\u{a0}",
    },
    CodePage {
        number: 737,
        about: "Greek",
        upper: "ΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩαβγδεζηθικλμνξοπρσςτυφχψ░▒▓│┤╡╢╖╕╣║╗╝╜╛┐└┴┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀ωάέήϊίόύϋώΆΈΉΊΌΎΏ±≥≤ΪΫ÷≈°∙·√ⁿ²■\u{a0}",
    },
    CodePage {
        number: 775,
        about: "Baltic",
        upper: "ĆüéāäģåćłēŖŗīŹÄÅÉæÆōöĢ¢ŚśÖÜø£Ø×¤ĀĪóŻżź”¦©®¬½¼Ł«»░▒▓│┤ĄČĘĖ╣║╗╝ĮŠ┐└┴┬├─┼ŲŪ╚╔╩╦╠═╬Žąčęėįšųūž┘┌█▄▌▐▀ÓßŌŃõÕµńĶķĻļņĒŅ’\u{ad}±“¾¶§÷„°∙·¹³²■\u{a0}",
    },
    CodePage {
        number: 869,
        about: "Greek 2",
        upper: "������Ά�·¬¦‘’Έ―ΉΊΪΌ��ΎΫ©Ώ²³ά£έήίϊΐόύΑΒΓΔΕΖΗ½ΘΙ«»░▒▓│┤ΚΛΜΝ╣║╗╝ΞΟ┐└┴┬├─┼ΠΡ╚╔╩╦╠═╬ΣΤΥΦΧΨΩαβγ┘┌█▄δε▀ζηθικλμνξοπρσςτ΄\u{ad}±υφχ§ψ΅°¨ωϋΰώ■\u{a0}",
    },
    CodePage {
        number: 874,
        about: "Thai",
        upper: "€����…�����������‘’“”•–—��������\u{a0}กขฃคฅฆงจฉชซฌญฎฏฐฑฒณดตถทธนบปผฝพฟภมยรฤลฦวศษสหฬอฮฯะัาำิีึืฺุู����฿เแโใไๅๆ็่้๊๋์ํ๎๏๐๑๒๓๔๕๖๗๘๙๚๛����",
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_have_128_upper_chars_and_decode() {
        for p in PAGES {
            assert_eq!(p.upper.chars().count(), 128, "cp{}", p.number);
        }
        let cp437 = by_name("437").unwrap();
        let cp850 = by_name("CP850").unwrap();
        // 0x84: "ä" in both; 0x9B: "¢" in cp437, "ø" in cp850.
        assert_eq!(cp437.decode(b"K\x84SE"), "KäSE");
        assert_eq!(cp437.decode(&[0x9B]), "¢");
        assert_eq!(cp850.decode(&[0x9B]), "ø");
        assert_eq!(by_name("ibm866").unwrap().decode(&[0x80]), "А");
        assert!(by_name("cp1252").unwrap_err().to_string().contains("cp437"));
        assert_eq!(default_page().name(), "cp437");
    }
}
