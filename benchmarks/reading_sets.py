# ruff: noqa: E501
"""Written/spoken pairs for reading_bench.py, by category, written by hand for this project.

Each line: ``category | written | spoken`` with ``||`` between spoken forms people use. TUNE is
what the reader was developed against; HELD_OUT was written before the reader was tuned and is
never used to tune it (report both). Comparison ignores case, punctuation and hyphens, reads
"oh" as "zero", and "a.m." as "am" (see reading_bench.normalize).
"""

from __future__ import annotations

TUNE = """
cardinal | We have 3 rooms left. | we have three rooms left
cardinal | About 1,250 people came. | about one thousand two hundred fifty people came
cardinal | It weighs 42 pounds. | it weighs forty two pounds
cardinal | There were 100 calls. | there were one hundred calls
cardinal | I found 7 results. | i found seven results
cardinal | We sold 12,000 units. | we sold twelve thousand units
cardinal | The temperature dropped -5 overnight. | the temperature dropped minus five overnight || the temperature dropped negative five overnight
cardinal | Pi is about 3.14. | pi is about three point one four
cardinal | Add 0.5 more. | add zero point five more || add point five more
cardinal | That is 1,000,000 views. | that is one million views
cardinal | Only 2 seats remain. | only two seats remain
cardinal | He scored 99 points. | he scored ninety nine points
cardinal | Wait 15 minutes, please. | wait fifteen minutes please
cardinal | It took 2048 tries to fix. | it took two thousand forty eight tries to fix
cardinal | There are 365 days. | there are three hundred sixty five days
cardinal | I counted 11 boxes. | i counted eleven boxes
cardinal | The score was 21 to 14. | the score was twenty one to fourteen
cardinal | Roughly 8,500 miles away. | roughly eight thousand five hundred miles away
cardinal | You have 4 new messages. | you have four new messages
cardinal | Chapter 10 starts here. | chapter ten starts here
money | Your total is $2,418.07. | your total is two thousand four hundred eighteen dollars and seven cents
money | It costs $5. | it costs five dollars
money | That is $1.50 each. | that is one dollar and fifty cents each || that is a dollar fifty each
money | A refund of -$15 was applied. | a refund of minus fifteen dollars was applied || a refund of negative fifteen dollars was applied
money | Revenue was $3.4B last year. | revenue was three point four billion dollars last year
money | The fee is €20. | the fee is twenty euros
money | It was -€15. | it was minus fifteen euros || it was negative fifteen euros
money | Rent is £1,200 a month. | rent is one thousand two hundred pounds a month || rent is twelve hundred pounds a month
money | Only $0.99! | only ninety nine cents
money | They raised $2.5 million. | they raised two point five million dollars
money | It costs ¥500. | it costs five hundred yen
money | Pay 15 USD now. | pay fifteen dollars now || pay fifteen us dollars now
money | A $10k bonus. | a ten thousand dollar bonus || a ten thousand dollars bonus
money | Tickets are $25. | tickets are twenty five dollars
money | That is $1 exactly. | that is one dollar exactly
money | About ₹300 per day. | about three hundred rupees per day
money | Prices from $15-$20. | prices from fifteen to twenty dollars || prices from fifteen dollars to twenty dollars
money | The balance is $0.05. | the balance is five cents
money | A fine of $250. | a fine of two hundred fifty dollars
money | Budget: $1.2M. | budget one point two million dollars
phone | Call 415-555-0188. | call four one five five five five zero one eight eight
phone | Dial 0800 123 456. | dial zero eight zero zero one two three four five six
phone | Reach us at (212) 555-0199. | reach us at two one two five five five zero one nine nine
phone | Text 555-0123 now. | text five five five zero one two three now
phone | Call +1 415 555 0188. | call plus one four one five five five five zero one eight eight
phone | Our line is 1-800-555-0199. | our line is one eight zero zero five five five zero one nine nine || our line is one eight hundred five five five zero one nine nine
phone | Call 415.555.0188 today. | call four one five five five five zero one eight eight today
phone | Phone: +44 20 7946 0958. | phone plus four four two zero seven nine four six zero nine five eight
phone | Call 212-555-0147, ext. 204. | call two one two five five five zero one four seven extension two zero four || call two one two five five five zero one four seven extension two oh four
phone | Fax 303-555-0177. | fax three zero three five five five zero one seven seven
phone | My number is 650 555 0111. | my number is six five zero five five five zero one one one
phone | Call (800) 555-0100 for help. | call eight zero zero five five five zero one zero zero for help || call eight hundred five five five zero one zero zero for help
phone | Try 020 7946 0000. | try zero two zero seven nine four six zero zero zero zero
phone | Ring 917-555-0133 after six. | ring nine one seven five five five zero one three three after six
phone | Call +61 2 5550 1234. | call plus six one two five five five zero one two three four
phone | Dial 911. | dial nine one one
phone | Text HELP to 555-0100. | text help to five five five zero one zero zero
phone | His cell is 310-555-0166. | his cell is three one zero five five five zero one six six
phone | Call 1 800 555 0199. | call one eight zero zero five five five zero one nine nine || call one eight hundred five five five zero one nine nine
phone | The office is 408-555-0155. | the office is four zero eight five five five zero one five five
digits | The PIN is 0091. | the pin is zero zero nine one
digits | Your zip code is 94103. | your zip code is nine four one zero three
digits | The card ending in 4821. | the card ending in four eight two one
digits | Your verification code is 482913. | your verification code is four eight two nine one three
digits | Order number 7731029. | order number seven seven three one zero two nine
digits | Your confirmation number is 55120. | your confirmation number is five five one two zero
digits | Account 0012345678. | account zero zero one two three four five six seven eight
digits | The OTP is 123456. | the o t p is one two three four five six
digits | Tracking number 9400111. | tracking number nine four zero zero one one one
digits | Card ends in 0042. | card ends in zero zero four two
digits | Invoice 20931 is due. | invoice two zero nine three one is due
digits | Your ticket number is 448. | your ticket number is four four eight
digits | Policy number 8812003. | policy number eight eight one two zero zero three
digits | Use passcode 2580. | use passcode two five eight zero
digits | Reference 77120. | reference seven seven one two zero
digits | Enter 0000 to reset. | enter zero zero zero zero to reset
digits | Member ID 3302918. | member id three three zero two nine one eight || member i d three three zero two nine one eight
digits | The CVV is 123. | the c v v is one two three
digits | Postal code 10001. | postal code one zero zero zero one
digits | Your booking reference is 88314. | your booking reference is eight eight three one four
time | Call by 5pm. | call by five pm
time | The store opens at 9:30 a.m. | the store opens at nine thirty am
time | Meet at 10:05. | meet at ten oh five
time | It ends at 19:45. | it ends at nineteen forty five || it ends at seven forty five pm
time | We close at 6 PM. | we close at six pm
time | Lunch is at 12:00. | lunch is at twelve o'clock || lunch is at twelve
time | Arrive by 7:15am. | arrive by seven fifteen am
time | The call is at 3:45 p.m. today. | the call is at three forty five pm today
time | It starts at 8 am sharp. | it starts at eight am sharp
time | Open until 11pm. | open until eleven pm
time | At 14:30 we leave. | at fourteen thirty we leave || at two thirty pm we leave
time | Check-in is at 4:00 PM. | check in is at four pm
time | Wake me at 6:00. | wake me at six o'clock || wake me at six
time | The train is at 18:00. | the train is at eighteen hundred || the train is at six pm
time | Noon is 12pm. | noon is twelve pm
time | It runs at 1:30. | it runs at one thirty
time | We met at 9 p.m. | we met at nine pm
time | Boarding at 7:50 AM. | boarding at seven fifty am
time | Dinner at 8:30pm. | dinner at eight thirty pm
time | The alarm is set for 5:00 a.m. | the alarm is set for five am || the alarm is set for five o'clock am
date | It ships on 2024-03-15. | it ships on march fifteenth twenty twenty four
date | Due 3/15/2024. | due march fifteenth twenty twenty four
date | On March 3, 2024 we open. | on march third twenty twenty four we open
date | Born on Jan 5, 1990. | born on january fifth nineteen ninety
date | See you Tue, Mar 5. | see you tuesday march fifth
date | It was in 1999. | it was in nineteen ninety nine
date | By Dec. 31 please. | by december thirty first please
date | Since 2005. | since two thousand five
date | On 12/25/2023. | on december twenty fifth twenty twenty three
date | The 1990s were fun. | the nineteen nineties were fun
date | Starting June 1st. | starting june first
date | Until Oct 12. | until october twelfth
date | On 15 March 2024. | on the fifteenth of march twenty twenty four || on march fifteenth twenty twenty four
date | Expires 07/2026. | expires july twenty twenty six || expires zero seven twenty twenty six
date | In the '80s. | in the eighties
date | On Fri, Aug 9. | on friday august ninth
date | From 2010 to 2020. | from twenty ten to twenty twenty
date | On 2023-11-02. | on november second twenty twenty three
date | Due 01/05/24. | due january fifth twenty twenty four
date | Back in 1900. | back in nineteen hundred
range | Open Tue-Thu. | open tuesday to thursday || open tuesday through thursday
range | Hours are 8-4. | hours are eight to four
range | Open 11am–7pm. | open eleven am to seven pm
range | It takes 15-20 minutes. | it takes fifteen to twenty minutes
range | Save 10-15%. | save ten to fifteen percent
range | From 2019-2021. | from twenty nineteen to twenty twenty one
range | Mon–Fri only. | monday to friday only || monday through friday only
range | Ages 5-12. | ages five to twelve
range | Pages 10–25. | pages ten to twenty five
range | Open 9:00-17:00. | open nine o'clock to seventeen hundred || open nine to five || open nine to seventeen hundred
range | We need 2-3 days. | we need two to three days
range | It costs $5-10. | it costs five to ten dollars
range | Call 9am-5pm. | call nine am to five pm
range | Open Mon-Sat. | open monday to saturday || open monday through saturday
range | Rooms 101-110. | rooms one hundred one to one hundred ten || rooms one oh one to one ten
range | It lasts 30-45 minutes. | it lasts thirty to forty five minutes
range | Temperatures 60-70 degrees. | temperatures sixty to seventy degrees
range | Open 10am - 6pm. | open ten am to six pm
range | Between 1-2 hours. | between one to two hours || between one and two hours
range | Sizes 8–10. | sizes eight to ten
measure | It weighs 5 kg. | it weighs five kilograms
measure | Drive 10km north. | drive ten kilometers north
measure | It is 72°F outside. | it is seventy two degrees fahrenheit outside
measure | He is 5'10" tall. | he is five feet ten tall || he is five foot ten tall || he is five feet ten inches tall
measure | Save 20% today. | save twenty percent today
measure | A 3 GB file. | a three gigabyte file || a three gigabytes file
measure | Going 65 mph. | going sixty five miles per hour
measure | Add 500 ml of water. | add five hundred milliliters of water
measure | It is 6 ft long. | it is six feet long
measure | Use 2 tbsp of oil. | use two tablespoons of oil
measure | It is 25°C. | it is twenty five degrees celsius
measure | Rates rose 3.5%. | rates rose three point five percent
measure | A 12" pizza. | a twelve inch pizza || a twelve inches pizza
measure | It took 30 mins. | it took thirty minutes
measure | Lift 10 lbs. | lift ten pounds
measure | Speed is 100 Mbps. | speed is one hundred megabits per second
measure | A 2,000 sq ft home. | a two thousand square foot home || a two thousand square feet home
measure | Battery at 5%. | battery at five percent
measure | It is 1 kg. | it is one kilogram
measure | Run 5km daily. | run five kilometers daily
web | Email jane.doe@mail.org today. | email jane dot doe at mail dot org today
web | Visit https://www.acme.com/help. | visit w w w dot acme dot com slash help
web | Go to acme.com. | go to acme dot com
web | Write to support@warmline.ai. | write to support at warmline dot a i || write to support at warmline dot ai
web | See http://example.org. | see example dot org
web | Follow @warmline_ai. | follow at warmline underscore a i || follow at warmline underscore ai
web | Use #VoiceAI. | use hashtag voice a i
web | Open report.pdf. | open report dot p d f || open report dot pdf
web | Contact bob_smith@gmail.com. | contact bob underscore smith at gmail dot com
web | Go to www.example.com. | go to w w w dot example dot com
web | Read notes.txt first. | read notes dot t x t first || read notes dot txt first
web | Mail info@shop.co.uk. | mail info at shop dot co dot uk || mail info at shop dot co dot u k
web | Check status.acme.io. | check status dot acme dot io || check status dot acme dot i o
web | Visit https://docs.acme.com/start. | visit docs dot acme dot com slash start
web | Email a.b@c.com. | email a dot b at c dot com
web | See github.com/acme. | see github dot com slash acme
web | Send it to sales@acme.com. | send it to sales at acme dot com
web | Tag #blackfriday. | tag hashtag blackfriday
web | Download setup.exe. | download setup dot e x e || download setup dot exe
web | Ask @jdoe. | ask at j doe || ask at jdoe
code | Your code is 4410-AZ. | your code is four four one zero a z
code | Flight UA123 is on time. | flight u a one two three is on time || flight u a one twenty three is on time
code | Ref AB12CD. | ref a b one two c d || reference a b one two c d
code | Gate B12. | gate b one two || gate b twelve
code | Order X7-99Q. | order x seven nine nine q
code | Model RT-2000. | model r t two zero zero zero || model r t two thousand
code | Seat 14C. | seat one four c || seat fourteen c
code | Confirmation K9P2. | confirmation k nine p two
code | It has COVID-19 rules. | it has covid nineteen rules
code | Plate 7ABC123. | plate seven a b c one two three
code | Your booking is QX4-77B. | your booking is q x four seven seven b
code | Use code SAVE20. | use code save two zero || use code save twenty
code | Part A4-220. | part a four two two zero || part a four two twenty
code | Voucher ZZ-901. | voucher z z nine zero one
code | Room 4B. | room four b
code | Serial SN8842X. | serial s n eight eight four two x
code | Track 1Z999AA1. | track one z nine nine nine a a one
code | Train 2B-15. | train two b one five || train two b fifteen
code | Coupon FALL25. | coupon fall two five || coupon fall twenty five
code | The ID is X9Y8. | the id is x nine y eight || the i d is x nine y eight
acronym | Use the ATM. | use the a t m
acronym | Call the FBI. | call the f b i
acronym | NASA launched it. | nasa launched it
acronym | Enter your PIN. | enter your pin
acronym | Ask the CEO. | ask the c e o
acronym | Send a PDF. | send a p d f
acronym | Check the FAQ. | check the faq || check the f a q
acronym | It is in the USA. | it is in the u s a
acronym | Henry VIII ruled. | henry the eighth ruled
acronym | World War II ended. | world war two ended
acronym | Read Chapter IV. | read chapter four
acronym | Louis XIV built it. | louis the fourteenth built it
acronym | Two ATMs nearby. | two a t m's nearby || two a t ms nearby
acronym | Dr. Smith will see you. | doctor smith will see you
acronym | Visit St. Louis. | visit saint louis
acronym | Bring ID, e.g. a passport. | bring i d for example a passport || bring id for example a passport
acronym | Apples, pears, etc. | apples pears et cetera
acronym | Mr. Lee called. | mister lee called
acronym | AT&T is down. | a t and t is down
acronym | Q&A at noon. | q and a at noon
address | Ship to 123 Main St. | ship to one twenty three main street || ship to one hundred twenty three main street
address | It is at 500 Elm Ave. | it is at five hundred elm avenue
address | Go to 42 Oak Dr. | go to forty two oak drive
address | Austin, TX 78701 | austin texas seven eight seven zero one
address | Apt 4B, please. | apartment four b please
address | 1600 Pennsylvania Ave NW. | sixteen hundred pennsylvania avenue northwest || sixteen hundred pennsylvania avenue n w
address | 77 Sunset Blvd, Los Angeles, CA 90028. | seventy seven sunset boulevard los angeles california nine zero zero two eight
address | 9 N Main St. | nine north main street
address | 250 Park Pkwy, Suite 5. | two fifty park parkway suite five || two hundred fifty park parkway suite five
address | 10 Downing St. | ten downing street
address | Boston, MA 02110. | boston massachusetts zero two one one zero
address | 3200 Ocean Blvd. | thirty two hundred ocean boulevard
address | 15 Elm Ct. | fifteen elm court
address | 88 Lake Rd. | eighty eight lake road
address | 401 Pine Ln. | four oh one pine lane || four hundred one pine lane
address | Ste 200, 1 Market St. | suite two hundred one market street
address | 7 River Hwy. | seven river highway
address | Seattle, WA 98101. | seattle washington nine eight one zero one
address | 2 Penn Plz. | two penn plaza
address | 55 Water St, New York, NY 10041. | fifty five water street new york new york one zero zero four one
fraction | Add 1/2 cup. | add one half cup || add half a cup
fraction | Rated 4.5/5. | rated four point five out of five
fraction | Use 3/4 of it. | use three quarters of it || use three fourths of it
fraction | It is 9/10. | it is nine out of ten
fraction | About 2/3 agree. | about two thirds agree
fraction | The 21st caller. | the twenty first caller
fraction | Her 3rd try. | her third try
fraction | The 100th day. | the one hundredth day
fraction | Add 1/4 tsp. | add one quarter teaspoon || add a quarter teaspoon || add one fourth teaspoon
fraction | Scored 8/10. | scored eight out of ten
fraction | It is 0.75 now. | it is zero point seven five now || it is point seven five now
fraction | 5/8 inch bolts. | five eighths inch bolts
fraction | The 2nd floor. | the second floor
fraction | A 1/3 share. | a one third share
fraction | Version 2.1.3 is out. | version two point one point three is out
fraction | Rated 3/5 stars. | rated three out of five stars
fraction | The 52nd week. | the fifty second week
fraction | Mix 7/8 cup. | mix seven eighths cup || mix seven eighths of a cup
fraction | At 1.5x speed. | at one point five times speed || at one point five x speed
fraction | Only 1% left. | only one percent left
weekday | Your visit is Wed, Mar 12 at 3pm. | your visit is wednesday march twelfth at three pm
weekday | We open Mon, June 2. | we open monday june second
weekday | Delivery on Fri. 10/4 works. | delivery on friday october fourth works
weekday | The sale ends Sun, 9 Nov. | the sale ends sunday the ninth of november
weekday | Sat, Dec 6 is fully booked. | saturday december sixth is fully booked
weekday | Thu, 5/8 at noon is free. | thursday may eighth at noon is free
weekday | Pickup: Tue., Jan 14. | pickup tuesday january fourteenth
weekday | Call back Mon or Wed. | call back monday or wednesday
weekday | We wed in the spring. | we wed in the spring
weekday | The sun was out all day. | the sun was out all day
weekday | Your slots are Wed, Thu, and Fri. | your slots are wednesday thursday and friday
weekday | Closed Sun. | closed sunday
place | Your flight boards at gate B22. | your flight boards at gate b twenty two
place | You are in seat 14C. | you are in seat fourteen c
place | Take exit 23B toward downtown. | take exit twenty three b toward downtown
place | Stay on I-80 for ten miles. | stay on i eighty for ten miles
place | The train leaves from platform 9A. | the train leaves from platform nine a
place | Arrivals are at terminal 2. | arrivals are at terminal two
place | Head to gate C7 now. | head to gate c seven now
place | Seats 12A and 12B are together. | seats twelve a and twelve b are together
place | Take I-95 north. | take i ninety five north
place | Your locker is D104. | your locker is d one hundred four || your locker is d one oh four
place | Serial number SN48213977. | serial number s n four eight two one three nine seven seven
place | Use Route 66 to get there. | use route sixty six to get there
dimension | The box is 40 x 30 x 15 cm. | the box is forty by thirty by fifteen centimeters
dimension | Set it to 1920x1080. | set it to nineteen twenty by ten eighty || set it to one thousand nine hundred twenty by one thousand eighty
dimension | You need a 2 x 4 board. | you need a two by four board
dimension | The rug is 5x8 feet. | the rug is five by eight feet
dimension | Print it at 8.5 x 11 inches. | print it at eight point five by eleven inches
dimension | The room is 12 x 14 ft. | the room is twelve by fourteen feet
dimension | A 10x10 tent. | a ten by ten tent
dimension | The screen is 2560 x 1440. | the screen is twenty five sixty by fourteen forty || the screen is two thousand five hundred sixty by one thousand four hundred forty
hash | Your order #58213 has shipped. | your order number five eight two one three has shipped
hash | Check ticket #3 first. | check ticket number three first
hash | Issue #412 is fixed. | issue number four twelve is fixed || issue number four one two is fixed
hash | Invoice #20931 is due. | invoice number two zero nine three one is due
hash | You are caller #7. | you are caller number seven
hash | Case #880142 was opened. | case number eight eight zero one four two was opened
hash | See #12 on the list. | see number twelve on the list
paired | Your room is 1207. | your room is twelve oh seven
paired | Go to suite 450. | go to suite four fifty
paired | Text JOIN to 55123. | text join to five five one two three
paired | Meeting ID: 845 2231 9907. | meeting i d eight four five two two three one nine nine zero seven
paired | The conference ID is 612 448 0931. | the conference i d is six one two four four eight zero nine three one
paired | Room 314 is on the third floor. | room three fourteen is on the third floor
paired | Text STOP to 78901 to opt out. | text stop to seven eight nine zero one to opt out
paired | Your passcode is 4471 2290. | your passcode is four four seven one two two nine zero
paired | Head to room 2019. | head to room twenty nineteen
paired | Dial in with access code 553 219. | dial in with access code five five three two one nine
file | I attached invoice_2024.pdf for you. | i attached invoice underscore twenty twenty four dot p d f for you || i attached invoice underscore two zero two four dot pdf for you
file | Open report-final.docx now. | open report dash final dot docx now
file | Save it as notes_v2.txt. | save it as notes underscore v two dot txt || save it as notes underscore v two dot t x t
file | The file is IMG_4521.jpg. | the file is img underscore four five two one dot jpg || the file is i m g underscore four five two one dot jpg || the file is i m g underscore four five two one dot j p g || the file is i m g underscore four five two one dot jpeg
file | Send me budget_q3_2025.xlsx please. | send me budget underscore q three underscore twenty twenty five dot x l s x please || send me budget underscore q three underscore two zero two five dot xlsx please
file | Download setup-1.4.exe today. | download setup dash one point four dot exe today || download setup dash one dot four dot exe today
unitnoun | You are on a 10 GB plan. | you are on a ten gigabyte plan
unitnoun | She ran a 5 km race. | she ran a five kilometer race
unitnoun | It is a 30 minute call. | it is a thirty minute call
unitnoun | We have a 2 liter bottle. | we have a two liter bottle
unitnoun | Grab the 12 oz can. | grab the twelve ounce can
unitnoun | He has a 3 hr shift. | he has a three hour shift
unitnoun | Use the 20 lb bag. | use the twenty pound bag
unitnoun | The trip is 5 km long. | the trip is five kilometers long
unitnoun | I need 10 GB more. | i need ten gigabytes more
unitnoun | A 50 mg dose works. | a fifty milligram dose works
promo | Use code SPRING25 at checkout. | use code spring twenty five at checkout
promo | Enter SAVE20 for a discount. | enter save twenty for a discount
promo | Try WELCOME10 on your first order. | try welcome ten on your first order
promo | The code FALL15 expires soon. | the code fall fifteen expires soon
promo | Apply HOLIDAY50 today. | apply holiday fifty today
promo | Use FREESHIP at checkout. | use freeship at checkout || use free ship at checkout
ratio | The screen is 16:9. | the screen is sixteen by nine || the screen is sixteen to nine
ratio | Shoot in 3:2 format. | shoot in three by two format || shoot in three to two format
ratio | The odds of 5:1 are long. | the odds of five to one are long
ratio | Mix at a ratio of 1:3. | mix at a ratio of one to three
ratio | They won 2:1 at home. | they won two to one at home
ratio | A 4:3 display. | a four by three display || a four to three display
ratio | Meet at 4:30 today. | meet at four thirty today
ratio | The ratio is 21:9. | the ratio is twenty one by nine || the ratio is twenty one to nine
mixed | Add 1 1/2 cups of flour. | add one and a half cups of flour
mixed | Cut 2 3/4 inches off. | cut two and three quarters inches off || cut two and three quarter inches off
mixed | It takes 1 1/4 hours. | it takes one and a quarter hours
mixed | Use 3 1/3 cups of water. | use three and a third cups of water || use three and one third cups of water
mixed | The wait is 2 1/2 weeks. | the wait is two and a half weeks
mixed | Pour 1 2/3 cups. | pour one and two thirds cups
mixed | She is 5 1/2 years old. | she is five and a half years old
measure | The plan is $20/mo. | the plan is twenty dollars per month
measure | Rooms start at $149/night. | rooms start at one hundred forty nine dollars per night
measure | It flows at 250 ml/min. | it flows at two hundred fifty milliliters per minute
measure | Speeds up to 3 GB/s. | speeds up to three gigabytes per second
measure | The lot is 60 km2. | the lot is sixty square kilometers
measure | Bags of 2-5lb each. | bags of two to five pounds each
measure | A 24-hour hotline. | a twenty four hour hotline
measure | A 7.5-inch screen. | a seven point five inch screen
measure | It is 100 million km away. | it is one hundred million kilometers away
measure | We offer a 401(k) plan. | we offer a four oh one k plan
fraction | Use a 5/16 wrench. | use a five sixteenths wrench
fraction | Only 1/3rd is left. | only one third is left
time | The clip runs 1:04:30. | the clip runs one hour four minutes and thirty seconds
time | Doors open at 7.30 pm. | doors open at seven thirty pm
date | The lease began 15-03-2021. | the lease began the fifteenth of march twenty twenty one
date | Renewal is due august 3. | renewal is due august third
date | Filed on 2023/11/02. | filed on november second twenty twenty three
date | Music from the mid-1990s. | music from the mid nineteen nineties
phone | Call (415)555-0188 now. | call four one five five five five zero one eight eight now
web | Ping 192.168.0.12 first. | ping one nine two dot one six eight dot zero dot one two first
weekday | Mon 3/10 works for us. | monday march tenth works for us
weekday | We're closed Sat and Sun. | we're closed saturday and sunday
weekday | We meet every Wed at noon. | we meet every wednesday at noon
weekday | See you on Sat! | see you on saturday
weekday | Your order ships Wed. | your order ships wednesday
place | Take I-405 south to exit 12. | take i four oh five south to exit twelve || take i four hundred five south to exit twelve
place | Gate D104 is at the far end. | gate d one oh four is at the far end || gate d one hundred four is at the far end
place | Take Route 101 north. | take route one oh one north
place | Your table is 12, in row 3. | your table is twelve in row three
hash | Order #A1234 shipped. | order number a one two three four shipped
hash | Store #0421 is open late. | store number zero four two one is open late
paired | Reply YES to 22333. | reply yes to two two three three three
paired | Enter 4471# to join. | enter four four seven one pound to join
paired | Flight 1234 is boarding. | flight twelve thirty four is boarding
promo | Use SUMMER2024 for 20% off. | use summer twenty twenty four for twenty percent off
dimension | A 10' x 12' room. | a ten feet by twelve feet room || a ten foot by twelve foot room
dimension | Print on 8.5" x 11" paper. | print on eight point five inches by eleven inches paper || print on eight and a half by eleven inch paper || print on eight point five inch by eleven inch paper
dimension | The deck is 12'x14'. | the deck is twelve feet by fourteen feet
mixed | Add 1-1/2 cups of milk. | add one and a half cups of milk
mixed | Add 1½ cups and ¾ tsp salt. | add one and a half cups and three quarters teaspoon salt || add one and a half cups and three quarters of a teaspoon salt
range | A budget of $5k-$10k works. | a budget of five thousand to ten thousand dollars works || a budget of five thousand dollars to ten thousand dollars works
cardinal | We ship 3 x a week. | we ship three times a week
money | You have 2 x $50 charges. | you have two times fifty dollars charges || you have two fifty dollar charges
code | Our 5G plan is fast. | our five g plan is fast
code | It's a 2-for-1 deal. | it's a two for one deal
measure | The 2 hrs you spent helped. | the two hours you spent helped
weekday | Open Sat. 9am to noon. | open saturday nine am to noon
weekday | Classes run Mon/Wed/Fri. | classes run monday wednesday friday || classes run monday wednesday and friday
place | Follow US-101 to SR-91. | follow u s one oh one to s r ninety one
place | Go to Ste. 450. | go to suite four fifty
paired | Your room number is 1412. | your room number is fourteen twelve
dimension | A 4 ft x 8 ft sheet. | a four foot by eight foot sheet || a four feet by eight feet sheet
dimension | Cut it 12 in x 18 in. | cut it twelve inches by eighteen inches
dimension | Stream in 1080p. | stream in ten eighty p
unitnoun | A 256 GB iPhone. | a two hundred fifty six gigabyte iphone
unitnoun | A 1,000 sq ft apartment. | a one thousand square foot apartment
mixed | Drill a 2 1/8 inch hole. | drill a two and an eighth inch hole
code | The role needs C++ and C#. | the role needs c plus plus and c hash || the role needs c plus plus and c sharp
code | Email sales+vip@acme.com now. | email sales plus vip at acme dot com now
hash | Your order #123-456 shipped. | your order number one two three four five six shipped
code | Your PIN is A123. | your pin is a one two three
unitnoun | Get a 10GB plan today. | get a ten gigabyte plan today
unitnoun | She ran a 5km race. | she ran a five kilometer race
paired | Rooms 1207 and 1208 are ready. | rooms twelve oh seven and twelve oh eight are ready
paired | Text 55123 to join. | text five five one two three to join
weekday | Weds, Mar 5 is open. | wednesday march fifth is open
place | Your flight UA 482 departs at 6. | your flight u a four eighty two departs at six || your flight u a four eight two departs at six
dimension | The monitor is 2560x1440. | the monitor is twenty five sixty by fourteen forty
weekday | Is Sat morning good for you? | is saturday morning good for you
weekday | We can do Wed evening instead. | we can do wednesday evening instead
weekday | Your slot (Wed) is at 3. | your slot wednesday is at three
weekday | Sun Life covers the claim. | sun life covers the claim
weekday | Sat down and relax. | sat down and relax
place | Gates A1-A20 are closed. | gates a one to a twenty are closed
place | Seats 12A-12C are yours. | seats twelve a to twelve c are yours
paired | Rooms 1201-1210 are booked. | rooms twelve oh one to twelve ten are booked
date | The call is on 12/05. | the call is on december fifth
range | We're open M-F, 9-5. | we're open monday to friday nine to five
range | Pick the 1st-3rd slots. | pick the first to third slots
date | Results for FY2024 are out. | results for f y twenty twenty four are out
code | We have a 4K TV on sale. | we have a four k t v on sale
hash | Your seat #14C is ready. | your seat number fourteen c is ready
hash | Order# 58213 has shipped. | order number five eight two one three has shipped
weekday | I can fit you in Thu, 2/13 at 4:45 pm. | i can fit you in thursday february thirteenth at four forty five pm
weekday | Delivery window: Sat 8am-12pm. | delivery window saturday eight am to twelve pm
weekday | Tues., Oct. 14 is your start date. | tuesday october fourteenth is your start date
place | Your connecting flight leaves from gate E7. | your connecting flight leaves from gate e seven
place | Merge onto I-90 W. | merge onto i ninety west || merge onto i ninety w
place | We upgraded you to seat 2F. | we upgraded you to seat two f
dimension | The crate is 48 x 40 x 36 inches. | the crate is forty eight by forty by thirty six inches
dimension | Images should be 1200x628. | images should be twelve hundred by six twenty eight || images should be twelve hundred by six hundred twenty eight || images should be one thousand two hundred by six hundred twenty eight
hash | Please quote case #20417. | please quote case number two zero four one seven
hash | You're #2 in line. | you're number two in line
paired | Your hotel room is 3112. | your hotel room is thirty one twelve
paired | Text YES to 80088 to confirm. | text yes to eight zero zero eight eight to confirm
paired | Webinar ID: 883 4412 0097. | webinar i d eight eight three four four one two zero zero nine seven
file | I've attached Lease_Agreement_2025.pdf. | i've attached lease underscore agreement underscore twenty twenty five dot p d f
unitnoun | We recommend a 20 lb bag. | we recommend a twenty pound bag
unitnoun | It's a 15 min drive. | it's a fifteen minute drive
promo | Code AUTUMN15 gets you 15% off. | code autumn fifteen gets you fifteen percent off
ratio | Use a 2:1 mix of water and vinegar. | use a two to one mix of water and vinegar
ratio | The photo is 4:5. | the photo is four by five
mixed | Bake for 1 1/2 hours. | bake for one and a half hours
mixed | The pipe is 3 3/8 inches wide. | the pipe is three and three eighths inches wide
weekday | The clinic is closed Sun, Dec 25. | the clinic is closed sunday december twenty fifth
weekday | Can we move it to Wed at 2? | can we move it to wednesday at two
weekday | Fri, 11/21 works for the install. | friday november twenty first works for the install
place | Head to baggage claim 6 after gate A31. | head to baggage claim six after gate a thirty one
place | The shuttle stops at terminal 1 and 3. | the shuttle stops at terminal one and three
place | Take exit 7B for the airport. | take exit seven b for the airport
dimension | It fits a 60 x 80 inch bed. | it fits a sixty by eighty inch bed
dimension | Upload a 1080x1080 image. | upload a ten eighty by ten eighty image || upload a one thousand eighty by one thousand eighty image
hash | Refer to invoice #4410 in your email. | refer to invoice number forty four ten in your email || refer to invoice number four four one zero in your email
hash | Pull request #87 is merged. | pull request number eighty seven is merged
paired | You're in room 823. | you're in room eight twenty three
paired | Please text JOIN to 30644. | please text join to three zero six four four
paired | Dial in, then enter ID 559 0012 3381. | dial in then enter i d five five nine zero zero one two three three eight one
file | The export is users_2025-06-01.csv. | the export is users underscore twenty twenty five dash zero six dash zero one dot c s v
unitnoun | Grab a 2 L bottle of soda. | grab a two liter bottle of soda
unitnoun | We offer a 5 GB add-on. | we offer a five gigabyte add on
promo | Enter THANKS20 at checkout. | enter thanks twenty at checkout
ratio | Mix it 3:1 with water. | mix it three to one with water
ratio | Odds are 10:1 against. | odds are ten to one against
mixed | It's 2 3/4 miles away. | it's two and three quarters miles away || it's two and three quarter miles away
weekday | Your next shift is Sun 6/8, 7am-3pm. | your next shift is sunday june eighth seven am to three pm
weekday | Pickup is Wed. after 5. | pickup is wednesday after five
weekday | Is Thu or Fri better? | is thursday or friday better
place | Drive to lot C4 and take shuttle 2. | drive to lot c four and take shuttle two
place | Your bus leaves from bay 12A. | your bus leaves from bay twelve a
place | Stay on Hwy 17 past exit 55. | stay on highway seventeen past exit fifty five
dimension | The sign is 24" x 36". | the sign is twenty four inches by thirty six inches
dimension | A 9x13 pan works. | a nine by thirteen pan works
hash | Track order #300129 online. | track order number three zero zero one two nine online
hash | Ask for agent #12. | ask for agent number twelve
paired | Check in at suite 1450. | check in at suite fourteen fifty
paired | The call-in code is 774 210 96. | the call in code is seven seven four two one zero nine six
paired | Text CODE to 72345 for a link. | text code to seven two three four five for a link
file | Save the form as W9_signed.pdf. | save the form as w nine underscore signed dot p d f
file | See meeting-notes-03.docx. | see meeting dash notes dash zero three dot docx || see meeting dash notes dash three dot docx
unitnoun | Try our 12 oz cold brew. | try our twelve ounce cold brew
unitnoun | Book a 60 min massage. | book a sixty minute massage
promo | Use GIFT5 on any order. | use gift five on any order
ratio | It's a 3:2 screen. | it's a three by two screen
mixed | Add 1 1/4 cups sugar. | add one and a quarter cups sugar
"""

HELD_OUT = """
voicebot | Your balance is $1,032.50. | your balance is one thousand thirty two dollars and fifty cents
voicebot | Please call 617-555-0142. | please call six one seven five five five zero one four two
voicebot | The code is 7Q-4411. | the code is seven q four four one one
voicebot | Your appointment is Thu, Apr 11 at 2:15pm. | your appointment is thursday april eleventh at two fifteen pm
voicebot | Reply to help@bank.com. | reply to help at bank dot com
voicebot | Visit https://bank.com/pay. | visit bank dot com slash pay
voicebot | Your PIN ends in 07. | your pin ends in zero seven
voicebot | Delivery takes 3-5 days. | delivery takes three to five days
voicebot | We are open Mon-Fri, 9am–6pm. | we are open monday to friday nine am to six pm || we are open monday through friday nine am to six pm
voicebot | A credit of -$12.40 was applied. | a credit of minus twelve dollars and forty cents was applied || a credit of negative twelve dollars and forty cents was applied
voicebot | Your flight DL482 departs at 06:40. | your flight d l four eight two departs at six forty || your flight d l four eight two departs at zero six forty || your flight d l four eighty two departs at six forty
voicebot | The package weighs 2.3 kg. | the package weighs two point three kilograms
voicebot | Your order 8812340 has shipped. | your order eight eight one two three four zero has shipped
voicebot | It is due on 04/30/2025. | it is due on april thirtieth twenty twenty five
voicebot | Interest is 4.25% APR. | interest is four point two five percent a p r
voicebot | Dial 0161 496 0000. | dial zero one six one four nine six zero zero zero zero
voicebot | Your zip is 60614. | your zip is six zero six one four
voicebot | The fee is €9.99. | the fee is nine euros and ninety nine cents || the fee is nine ninety nine euros
voicebot | Ship to 410 Oak St, Denver, CO 80203. | ship to four ten oak street denver colorado eight zero two zero three || ship to four hundred ten oak street denver colorado eight zero two zero three
voicebot | Read the FAQ at acme.com/faq. | read the faq at acme dot com slash faq || read the f a q at acme dot com slash faq
public | The meeting is on January 7, 2021. | the meeting is on january seventh twenty twenty one
public | He paid £45.10. | he paid forty five pounds and ten pence || he paid forty five pounds ten
public | It is 3.2 km away. | it is three point two kilometers away
public | About 23% said yes. | about twenty three percent said yes
public | The 4th of July. | the fourth of july
public | In 1865 the war ended. | in eighteen sixty five the war ended
public | King George III. | king george the third
public | Pages 5-9. | pages five to nine
public | At 7:30 pm. | at seven thirty pm
public | Dial 1-877-555-0123. | dial one eight seven seven five five five zero one two three
public | Email me at tom.lee@uni.edu. | email me at tom dot lee at uni dot edu
public | A 2/3 majority. | a two thirds majority
public | It was 98.6°F. | it was ninety eight point six degrees fahrenheit
public | A 15 lb turkey. | a fifteen pound turkey || a fifteen pounds turkey
public | Apt 12, 300 Main St. | apartment twelve three hundred main street
public | The 1970s. | the nineteen seventies
public | I have 250 cards. | i have two hundred fifty cards
public | Open 24/7. | open twenty four seven
public | He ran 26.2 mi. | he ran twenty six point two miles
public | Call the IRS. | call the i r s
"""
